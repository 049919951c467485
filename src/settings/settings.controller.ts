import { Controller, Get, HttpCode, Patch, Req } from '@nestjs/common';
import { ApiConsumes, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Auth } from '../common/auth/auth.decorator';
import { ADMIN_ONLY } from '../common/auth/role';
import { StoredImagesService } from '../uploads/stored-images.service';
import { SettingsService, TeamSettings } from './settings.service';

@ApiTags('settings')
@Controller('settings')
export class SettingsController {
  constructor(
    private readonly settings: SettingsService,
    private readonly images: StoredImagesService,
  ) {}

  @Get()
  @Auth({ cookie: true })
  read(): Promise<TeamSettings> {
    return this.settings.read();
  }

  @Patch()
  @HttpCode(200)
  @ApiConsumes('multipart/form-data')
  @Auth({ cookie: true, roles: ADMIN_ONLY })
  async update(@Req() req: Request): Promise<{ ok: true }> {
    await this.settings.update(await this.images.receive(req, { logo: 'logo' }));
    return { ok: true };
  }
}

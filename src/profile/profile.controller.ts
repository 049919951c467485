import { Controller, HttpCode, Patch, Req } from '@nestjs/common';
import { ApiConsumes, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Auth } from '../common/auth/auth.decorator';
import type { Principal } from '../common/auth/principal';
import { CurrentPrincipal } from '../common/auth/principal.decorator';
import { StoredImagesService } from '../uploads/stored-images.service';
import { ProfileService } from './profile.service';

@ApiTags('profile')
@Controller('profile')
export class ProfileController {
  constructor(
    private readonly profile: ProfileService,
    private readonly images: StoredImagesService,
  ) {}

  @Patch()
  @HttpCode(200)
  @ApiConsumes('multipart/form-data')
  @Auth({ cookie: true })
  async update(@Req() req: Request, @CurrentPrincipal() principal: Principal): Promise<{ ok: true }> {
    await this.profile.update(principal, await this.images.receive(req, { avatar: 'avatar' }));
    return { ok: true };
  }
}

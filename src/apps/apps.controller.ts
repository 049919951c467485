import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Auth } from '../common/auth/auth.decorator';
import { WRITER_ROLES } from '../common/auth/role';
import { ParseIdPipe } from '../common/validation/parse-id.pipe';
import { AppListItem, toAppListItem } from './apps.mapper';
import { AppsService } from './apps.service';
import { CreateAppDto } from './dto/create-app.dto';
import { RenameAppDto } from './dto/rename-app.dto';

@ApiTags('apps')
@Controller('apps')
export class AppsController {
  constructor(private readonly apps: AppsService) {}

  @Get()
  @Auth({ cookie: true, pat: 'view' })
  async list(): Promise<{ items: AppListItem[] }> {
    return { items: (await this.apps.list()).map(toAppListItem) };
  }

  @Post()
  @Auth({ cookie: true, roles: WRITER_ROLES })
  async create(@Body() dto: CreateAppDto): Promise<{ id: number; ok: true }> {
    const app = await this.apps.create({ name: dto.name, bundleIdKey: dto.bundle_id_key, platform: dto.platform });
    return { id: app.id, ok: true };
  }

  @Patch(':id')
  @Auth({ cookie: true, roles: WRITER_ROLES })
  async rename(@Param('id', ParseIdPipe) id: number, @Body() dto: RenameAppDto): Promise<{ ok: true }> {
    await this.apps.rename(id, dto.name);
    return { ok: true };
  }

  @Delete(':id')
  @HttpCode(200)
  @Auth({ cookie: true, roles: WRITER_ROLES })
  async remove(@Param('id', ParseIdPipe) id: number): Promise<{ ok: true }> {
    await this.apps.delete(id);
    return { ok: true };
  }
}

import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ApiErrors, OkResponse } from '../common/api/responses';
import { Auth } from '../common/auth/auth.decorator';
import { WRITER_ROLES } from '../common/auth/role';
import { ParseIdPipe } from '../common/validation/parse-id.pipe';
import { AppCreated, AppList, toAppListItem } from './apps.mapper';
import { AppsService } from './apps.service';
import { CreateAppDto } from './dto/create-app.dto';
import { RenameAppDto } from './dto/rename-app.dto';

@ApiTags('apps')
@Controller('apps')
export class AppsController {
  constructor(private readonly apps: AppsService) {}

  @Get()
  @Auth({ cookie: true, pat: 'view' })
  @ApiOkResponse({ type: AppList, description: 'every app with a summary of its latest build' })
  @ApiErrors(401, 403)
  async list(): Promise<AppList> {
    return { items: (await this.apps.list()).map(toAppListItem) };
  }

  @Post()
  @Auth({ cookie: true, roles: WRITER_ROLES })
  @ApiCreatedResponse({ type: AppCreated })
  @ApiErrors(400, 401, 403)
  async create(@Body() dto: CreateAppDto): Promise<AppCreated> {
    const app = await this.apps.create({ name: dto.name, bundleIdKey: dto.bundle_id_key, platform: dto.platform });
    return { id: app.id, ok: true };
  }

  @Patch(':id')
  @Auth({ cookie: true, roles: WRITER_ROLES })
  @ApiOkResponse({ type: OkResponse })
  @ApiErrors(400, 401, 403, 404)
  async rename(@Param('id', ParseIdPipe) id: number, @Body() dto: RenameAppDto): Promise<OkResponse> {
    await this.apps.rename(id, dto.name);
    return { ok: true };
  }

  @Delete(':id')
  @HttpCode(200)
  @Auth({ cookie: true, roles: WRITER_ROLES })
  @ApiOkResponse({ type: OkResponse, description: 'the app is removed with its builds and comments' })
  @ApiErrors(400, 401, 403, 404)
  async remove(@Param('id', ParseIdPipe) id: number): Promise<OkResponse> {
    await this.apps.delete(id);
    return { ok: true };
  }
}

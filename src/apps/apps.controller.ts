import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { BuildIconsService } from '../builds/build-icons.service';
import { ApiFileResponse } from '../common/api/files';
import { ApiErrors, OkResponse } from '../common/api/responses';
import type { Principal } from '../common/auth/principal';
import { CurrentPrincipal } from '../common/auth/principal.decorator';
import { Auth } from '../common/auth/auth.decorator';
import { WRITER_ROLES } from '../common/auth/role';
import { ErrorMessages } from '../common/errors/error-messages';
import { ParseIdPipe } from '../common/validation/parse-id.pipe';
import { AppCreated, AppList, toAppListItem } from './apps.mapper';
import { AppsService } from './apps.service';
import { CreateAppDto } from './dto/create-app.dto';
import { RenameAppDto } from './dto/rename-app.dto';

@ApiTags('apps')
@Controller('apps')
export class AppsController {
  constructor(
    private readonly apps: AppsService,
    private readonly icons: BuildIconsService,
  ) {}

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
  @ApiErrors(400, 401, 403, 409)
  async create(@Body() dto: CreateAppDto): Promise<AppCreated> {
    const app = await this.apps.create({ name: dto.name, bundleIdKey: dto.bundle_id_key, platform: dto.platform });
    return { id: app.id, ok: true };
  }

  @Patch(':id')
  @Auth({ cookie: true, roles: WRITER_ROLES })
  @ApiOkResponse({ type: OkResponse })
  @ApiErrors(400, 401, 403, 404)
  async rename(@Param('id', new ParseIdPipe(ErrorMessages.appNotFound)) id: number, @Body() dto: RenameAppDto): Promise<OkResponse> {
    await this.apps.rename(id, dto.name);
    return { ok: true };
  }

  @Delete(':id')
  @HttpCode(200)
  @Auth({ cookie: true, roles: WRITER_ROLES })
  @ApiOkResponse({ type: OkResponse, description: 'the app is removed with its builds and comments' })
  @ApiErrors(400, 401, 403, 404)
  async remove(@CurrentPrincipal() principal: Principal, @Param('id', new ParseIdPipe(ErrorMessages.appNotFound)) id: number): Promise<OkResponse> {
    await this.apps.delete(principal, id);
    return { ok: true };
  }

  /** Beyond the spec: the launcher icon of the app's newest build that has one (docs/builds.md "App icons"). */
  @Get(':id/icon')
  @Auth({ cookie: true, pat: 'view' })
  @ApiFileResponse(['image/png', 'image/webp'], 'the icon of the newest build that has one; revalidated with its ETag (no-cache)')
  @ApiResponse({ status: 304, description: 'If-None-Match matched the ETag' })
  @ApiErrors(400, 401, 403, 404)
  async icon(@Param('id', new ParseIdPipe(ErrorMessages.appNotFound)) id: number, @Res() res: Response): Promise<void> {
    await this.icons.sendAppIcon(id, res);
  }
}

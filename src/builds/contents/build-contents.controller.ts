import { Body, Controller, Get, Param, Put, Query } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../../common/api/responses';
import { Auth } from '../../common/auth/auth.decorator';
import type { Role } from '../../common/auth/role';
import { ErrorMessages } from '../../common/errors/error-messages';
import { ParseIdPipe } from '../../common/validation/parse-id.pipe';
import { BuildComparison } from './build-comparison';
import { AppSizes, BuildContentsResponse, toAppSizes, toContentsResponse } from './build-contents.mapper';
import { BuildContentsService } from './build-contents.service';
import { AppSizesQuery, DEFAULT_SIZES } from './dto/app-sizes.query';
import { compareTarget, CompareQuery } from './dto/compare.query';
import { CompareSettingsDto } from './dto/compare-settings.dto';

/** Who may change an app's comparison rules (issue 28): not QA, whose verdicts the flags inform. */
const SETTINGS_ROLES: Role[] = ['Admin', 'Developer'];

/** Beyond the spec: what a build holds and what changed since another build (docs/builds.md "Contents and comparison"). */
@ApiTags('builds')
@Controller()
export class BuildContentsController {
  constructor(private readonly contents: BuildContentsService) {}

  @Get('builds/:id/contents')
  @Auth({ cookie: true, pat: 'builds:write' })
  @ApiOkResponse({
    type: BuildContentsResponse,
    description: 'size breakdown, permissions, SDKs, signing (Android), minimum OS, frameworks, usage descriptions (iOS); which builds compare\'s previous and last_done mean here (null where compare answers 404)',
  })
  @ApiErrors(400, 401, 403, 404)
  async get(@Param('id', new ParseIdPipe(ErrorMessages.buildNotFound)) id: number): Promise<BuildContentsResponse> {
    return toContentsResponse(id, await this.contents.contentsOf(id));
  }

  @Get('builds/:id/compare')
  @Auth({ cookie: true, pat: 'builds:write' })
  @ApiOkResponse({ type: BuildComparison, description: 'changes from compared_with to this build, and flags with reasons' })
  @ApiErrors(400, 401, 403, 404, 409)
  async compare(@Param('id', new ParseIdPipe(ErrorMessages.buildNotFound)) id: number, @Query() query: CompareQuery): Promise<BuildComparison> {
    return this.contents.compare(id, compareTarget(query));
  }

  @Get('apps/:id/compare-settings')
  @Auth({ cookie: true, pat: 'builds:write' })
  @ApiOkResponse({ type: CompareSettingsDto, description: 'the defaults until set' })
  @ApiErrors(400, 401, 403, 404)
  settings(@Param('id', new ParseIdPipe(ErrorMessages.appNotFound)) id: number): Promise<CompareSettingsDto> {
    return this.contents.settingsOfApp(id);
  }

  @Get('apps/:id/sizes')
  @Auth({ cookie: true, pat: 'view' })
  @ApiOkResponse({ type: AppSizes, description: "the file size of the app's last builds on its platform, oldest first (the Apps page's trend)" })
  @ApiErrors(400, 401, 403, 404)
  async sizes(@Param('id', new ParseIdPipe(ErrorMessages.appNotFound)) id: number, @Query() query: AppSizesQuery): Promise<AppSizes> {
    const { app, builds } = await this.contents.sizesOf(id, query.limit ?? DEFAULT_SIZES);
    return toAppSizes(app.id, app.platform, builds);
  }

  @Put('apps/:id/compare-settings')
  @Auth({ cookie: true, roles: SETTINGS_ROLES })
  @ApiOkResponse({ type: CompareSettingsDto, description: 'the settings as saved' })
  @ApiErrors(400, 401, 403, 404)
  saveSettings(@Param('id', new ParseIdPipe(ErrorMessages.appNotFound)) id: number, @Body() dto: CompareSettingsDto): Promise<CompareSettingsDto> {
    return this.contents.saveSettings(id, dto);
  }
}

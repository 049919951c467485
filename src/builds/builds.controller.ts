import { Body, Controller, Delete, Get, Header, HttpCode, Param, Patch, Post, Query, Req, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ApiFileResponse, ApiMultipartBody, binaryFile } from '../common/api/files';
import { ApiErrors, OkResponse } from '../common/api/responses';
import { Auth } from '../common/auth/auth.decorator';
import type { Principal } from '../common/auth/principal';
import { CurrentPrincipal } from '../common/auth/principal.decorator';
import { WRITER_ROLES } from '../common/auth/role';
import { ErrorMessages } from '../common/errors/error-messages';
import { sqlDateTime } from '../common/time';
import { ParseIdPipe } from '../common/validation/parse-id.pipe';
import { BuildDownloadService } from './build-download.service';
import { BuildIconsService } from './build-icons.service';
import { BuildIntakeService } from './build-intake.service';
import { BuildQueryService } from './build-query.service';
import { BuildReviewService, WEBHOOKS_NOTIFIED_HEADER } from './build-review.service';
import { FORGE_STATUSES_QUEUED_HEADER } from './notices/status-notice-counters';
import { BUILD_STATUSES } from './build-status';
import { PLATFORMS } from '../app-catalogue/platform';
import {
  Build,
  BuildList,
  BuildStatusChange,
  BuildSummary,
  DeletionScheduled,
  toBuildResponse,
  toBuildStatusChange,
  toBuildSummary,
} from './builds.mapper';
import { ListBuildsQuery } from './dto/list-builds.query';
import { UpdateBuildDto } from './dto/update-build.dto';

@ApiTags('builds')
@Controller('builds')
export class BuildsController {
  constructor(
    private readonly intake: BuildIntakeService,
    private readonly query: BuildQueryService,
    private readonly review: BuildReviewService,
    private readonly download: BuildDownloadService,
    private readonly icons: BuildIconsService,
  ) {}

  @Post()
  @ApiMultipartBody(
    {
      file: binaryFile('iOS simulator build (.app.zip, .tar.gz, .tgz) or Android .apk; .ipa and .aab are refused'),
      status: { type: 'string', enum: [...BUILD_STATUSES], description: 'omitted = unset' },
      label: { type: 'string', maxLength: 200, description: 'free-text label, e.g. a branch name' },
      platform: { type: 'string', enum: [...PLATFORMS], description: 'derived from the file type when omitted' },
      app_id: { type: 'integer', minimum: 1, description: 'attach to this app; otherwise resolved from the bundle id' },
      // Provenance, beyond the spec (docs/builds.md "Provenance"); the same names in tus metadata.
      commit: { type: 'string', pattern: '^([0-9a-fA-F]{40}|[0-9a-fA-F]{64})$', description: 'the full commit SHA the build was made from' },
      branch: { type: 'string', maxLength: 255 },
      repository: { type: 'string', maxLength: 200, description: 'owner/name on a configured forge (GitLab: group/subgroup/name)' },
      pull_request: { type: 'integer', minimum: 1, maximum: 2147483647 },
      ci_url: { type: 'string', maxLength: 2048, description: 'http(s) URL of the CI run' },
      changelog: { type: 'string', maxLength: 4000, description: 'what to test' },
    },
    ['file'],
  )
  @Auth({ cookie: true, pat: 'builds:write', roles: WRITER_ROLES })
  @ApiCreatedResponse({ type: BuildSummary })
  @ApiErrors(400, 401, 403, 404, 413, 503)
  async upload(@Req() req: Request, @CurrentPrincipal() principal: Principal): Promise<BuildSummary> {
    return toBuildSummary(await this.intake.receive(req, principal));
  }

  @Get()
  @Auth({ cookie: true, pat: 'builds:write' })
  @ApiOkResponse({ type: BuildList })
  @ApiErrors(400, 401, 403)
  async list(@Query() query: ListBuildsQuery): Promise<BuildList> {
    const page = await this.query.list(query);
    return { items: page.items.map(toBuildResponse), total: page.total };
  }

  @Get(':id')
  @Auth({ cookie: true, pat: 'builds:write' })
  @ApiOkResponse({ type: Build })
  @ApiErrors(400, 401, 403, 404)
  async get(@Param('id', new ParseIdPipe(ErrorMessages.buildNotFound)) id: number): Promise<Build> {
    return toBuildResponse(await this.query.detail(id));
  }

  @Get(':id/history')
  @Auth({ cookie: true, pat: 'builds:write' })
  @ApiOkResponse({ type: [BuildStatusChange], description: 'beyond the spec: who set the status, from what, to what, when; oldest first, the first entry is the upload' })
  @ApiErrors(400, 401, 403, 404)
  async history(@Param('id', new ParseIdPipe(ErrorMessages.buildNotFound)) id: number): Promise<BuildStatusChange[]> {
    return (await this.query.history(id)).map(toBuildStatusChange);
  }

  @Patch(':id')
  @Auth({ cookie: true, roles: WRITER_ROLES })
  @ApiOkResponse({
    type: OkResponse,
    description: 'a change to Done or Rejected notifies the webhooks',
    headers: {
      [WEBHOOKS_NOTIFIED_HEADER]: { description: 'beyond the spec: how many webhook endpoints this change notifies (0 when none)', schema: { type: 'integer' } },
      [FORGE_STATUSES_QUEUED_HEADER]: { description: 'beyond the spec: how many forge statuses (commit statuses, check runs) this change queued (0 when none)', schema: { type: 'integer' } },
    },
  })
  @ApiErrors(400, 401, 403, 404)
  async update(
    @Param('id', new ParseIdPipe(ErrorMessages.buildNotFound)) id: number,
    @Body() dto: UpdateBuildDto,
    @CurrentPrincipal() principal: Principal,
    @Res({ passthrough: true }) res: Response,
  ): Promise<OkResponse> {
    const notices = await this.review.update(id, { statusLabel: dto.status_label, versionLabel: dto.version_label }, principal);
    // Headers, not body fields: spec §4 fixes the body as { ok: true }.
    res.setHeader(WEBHOOKS_NOTIFIED_HEADER, String(notices.webhooks));
    res.setHeader(FORGE_STATUSES_QUEUED_HEADER, String(notices.forgeStatuses));
    return { ok: true };
  }

  @Post(':id/schedule-deletion')
  @HttpCode(200)
  @Auth({ cookie: true, roles: WRITER_ROLES })
  @ApiOkResponse({ type: DeletionScheduled, description: 'files and record are purged after SVC_BUILD_TTL_DAYS days' })
  @ApiErrors(400, 401, 403, 404)
  async scheduleDeletion(
    @CurrentPrincipal() principal: Principal,
    @Param('id', new ParseIdPipe(ErrorMessages.buildNotFound)) id: number,
  ): Promise<DeletionScheduled> {
    return { ok: true, delete_after: sqlDateTime(await this.review.scheduleDeletion(principal, id)) };
  }

  @Delete(':id/schedule-deletion')
  @HttpCode(200)
  @Auth({ cookie: true, roles: WRITER_ROLES })
  @ApiOkResponse({ type: OkResponse })
  @ApiErrors(400, 401, 403, 404)
  async cancelDeletion(
    @CurrentPrincipal() principal: Principal,
    @Param('id', new ParseIdPipe(ErrorMessages.buildNotFound)) id: number,
  ): Promise<OkResponse> {
    await this.review.cancelDeletion(principal, id);
    return { ok: true };
  }

  /** Beyond the spec: the stored file, for agents that install builds and for people (Range supported). */
  @Get(':id/download')
  @Auth({ cookie: true, pat: ['builds:write', 'view', 'agent'] })
  @ApiFileResponse(
    ['application/vnd.android.package-archive', 'application/zip', 'application/gzip', 'application/octet-stream'],
    'the uploaded build file (Range requests answered 206)',
  )
  @ApiErrors(400, 401, 403, 404)
  async downloadFile(@Param('id', new ParseIdPipe(ErrorMessages.buildNotFound)) id: number, @Res() res: Response): Promise<void> {
    await this.download.send(id, res);
  }

  /** Beyond the spec: the launcher icon read at upload (docs/builds.md "App icons"); same access as the download. */
  @Get(':id/icon')
  @Auth({ cookie: true, pat: ['builds:write', 'view'] })
  @ApiFileResponse(['image/png', 'image/webp'], 'the launcher icon; cached for a year (a build\'s icon never changes), with an ETag')
  @ApiResponse({ status: 304, description: 'If-None-Match matched the ETag' })
  @ApiErrors(400, 401, 403, 404)
  async icon(@Param('id', new ParseIdPipe(ErrorMessages.buildNotFound)) id: number, @Res() res: Response): Promise<void> {
    await this.icons.sendBuildIcon(id, res);
  }
}

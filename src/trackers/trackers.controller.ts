import { Body, Controller, Get, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { ApiErrors } from '../common/api/responses';
import { Auth } from '../common/auth/auth.decorator';
import type { Principal } from '../common/auth/principal';
import { WRITER_ROLES } from '../common/auth/role';
import { CurrentPrincipal } from '../common/auth/principal.decorator';
import { ParseIdPipe } from '../common/validation/parse-id.pipe';
import { ErrorMessages } from '../common/errors/error-messages';
import { ReportIssueDto } from './dto/report-issue.dto';
import { TrackerWebhookService } from './webhooks/tracker-webhook.service';
import { BuildIssue, BuildIssues, WebhookReceived } from './trackers.mapper';
import { TrackersService } from './trackers.service';

/** "Report issue" on a build (beyond the spec: docs/integrations.md "Issue trackers"). */
@ApiTags('trackers')
@Controller()
export class TrackersController {
  constructor(
    private readonly trackers: TrackersService,
    private readonly webhooks: TrackerWebhookService,
  ) {}

  @Post('builds/:id/issues')
  @Auth({ cookie: true, pat: 'builds:write', roles: WRITER_ROLES })
  @ApiCreatedResponse({ type: BuildIssue, description: 'queued: filed in the tracker by the outbox, evidence attached after' })
  @ApiErrors(400, 401, 403, 404)
  report(@Param('id', new ParseIdPipe(ErrorMessages.buildNotFound)) id: number, @Body() body: ReportIssueDto, @CurrentPrincipal() principal: Principal, @Req() req: Request): Promise<BuildIssue> {
    return this.trackers.report(id, body, principal, `${req.protocol}://${req.get('host')}`);
  }

  @Get('builds/:id/issues')
  @Auth({ cookie: true, pat: 'view' })
  @ApiOkResponse({ type: BuildIssues })
  @ApiErrors(400, 401, 404)
  list(@Param('id', new ParseIdPipe(ErrorMessages.buildNotFound)) id: number): Promise<BuildIssues> {
    return this.trackers.list(id);
  }

  @Post('integrations/trackers/:name/webhook')
  @HttpCode(200)
  @Auth({ public: true })
  @ApiOkResponse({ type: WebhookReceived, description: 'verified with the tracker\'s webhook secret' })
  @ApiErrors(401, 404)
  async webhook(@Param('name') name: string, @Req() req: Request): Promise<WebhookReceived> {
    return { applied: await this.webhooks.receive(name, req) };
  }
}

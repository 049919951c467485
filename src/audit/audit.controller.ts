import { Body, Controller, Get, HttpCode, Patch, Query, Res } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { ApiErrors } from '../common/api/responses';
import { Auth } from '../common/auth/auth.decorator';
import type { Principal } from '../common/auth/principal';
import { CurrentPrincipal } from '../common/auth/principal.decorator';
import { ADMIN_ONLY } from '../common/auth/role';
import { actorOf } from './audit-actor';
import { AuditLogService } from './audit-log.service';
import { AuditQueryService } from './audit-query.service';
import { AuditPage, AuditSettingsResponse } from './audit.mapper';
import { ExportAuditQuery, ListAuditQuery, UpdateAuditSettingsDto } from './dto/audit-query.dto';

/** The audit log for Admins (docs/audit.md): list, export, retention. */
@ApiTags('audit')
@Controller('audit')
export class AuditController {
  constructor(
    private readonly query: AuditQueryService,
    private readonly log: AuditLogService,
  ) {}

  @Get()
  @Auth({ cookie: true, roles: ADMIN_ONLY })
  @ApiOkResponse({ type: AuditPage, description: 'newest first' })
  @ApiErrors(400, 401, 403)
  list(@Query() query: ListAuditQuery): Promise<AuditPage> {
    return this.query.page(query);
  }

  @Get('export')
  @Auth({ cookie: true, roles: ADMIN_ONLY })
  // The two formats on the 200 only: @ApiProduces would also claim them for the { error } answers.
  @ApiOkResponse({
    description: 'every matching entry, oldest first, with its hashes (JSON Lines or CSV), streamed',
    content: { 'application/x-ndjson': { schema: { type: 'string', format: 'binary' } }, 'text/csv': { schema: { type: 'string', format: 'binary' } } },
  })
  @ApiErrors(400, 401, 403)
  async export(@Query() query: ExportAuditQuery, @Res() res: Response): Promise<void> {
    await this.query.export(query, query.format ?? 'jsonl', res);
  }

  @Get('settings')
  @Auth({ cookie: true, roles: ADMIN_ONLY })
  @ApiOkResponse({ type: AuditSettingsResponse })
  @ApiErrors(401, 403)
  async settings(): Promise<AuditSettingsResponse> {
    return { retention_days: await this.log.retentionDays() };
  }

  @Patch('settings')
  @HttpCode(200)
  @Auth({ cookie: true, roles: ADMIN_ONLY })
  @ApiOkResponse({ type: AuditSettingsResponse })
  @ApiErrors(400, 401, 403)
  async updateSettings(@CurrentPrincipal() principal: Principal, @Body() dto: UpdateAuditSettingsDto): Promise<AuditSettingsResponse> {
    await this.log.setRetentionDays(actorOf(principal), dto.retention_days);
    return { retention_days: await this.log.retentionDays() };
  }
}

import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors, OkResponse } from '../common/api/responses';
import { Auth } from '../common/auth/auth.decorator';
import type { Principal } from '../common/auth/principal';
import { CurrentPrincipal } from '../common/auth/principal.decorator';
import { ADMIN_ONLY } from '../common/auth/role';
import { ParseIdPipe } from '../common/validation/parse-id.pipe';
import { CreateForgeDto } from './dto/create-forge.dto';
import { TestStatusDto, TestStatusResult } from './dto/test-status.dto';
import { UpdateForgeDto } from './dto/update-forge.dto';
import { ForgeItem, ForgeLog } from './forges.mapper';
import { FORGE_NOT_FOUND, ForgesService } from './forges.service';
import { DashboardForgesService } from './settings/dashboard-forges.service';

const ADMIN = { cookie: true, roles: ADMIN_ONLY } as const;

/**
 * Forges added by an Admin in the dashboard (beyond the spec; docs/integrations.md "Forges added in
 * the dashboard"): the token or App key is write-only (`has_token`, `has_private_key`), kept
 * encrypted with SVC_SECRETS_KEY.
 */
@ApiTags('forges')
@Controller('forges')
export class DashboardForgesController {
  constructor(
    private readonly dashboard: DashboardForgesService,
    private readonly forges: ForgesService,
  ) {}

  @Post()
  @Auth(ADMIN)
  @ApiOperation({
    summary: 'Add a forge: a token, or for GitHub an App (app_id, installation_id, private_key)',
    description:
      'The URL follows the rule of webhooks registered through the API (LAN yes; loopback, this host, link-local and metadata addresses 400). A repository another forge serves is 409. Without SVC_SECRETS_KEY set on the relay: 400 saying so.',
  })
  @ApiCreatedResponse({ type: ForgeItem })
  @ApiErrors(400, 401, 403, 409)
  create(@CurrentPrincipal() principal: Principal, @Body() dto: CreateForgeDto): Promise<ForgeItem> {
    return this.dashboard.create(principal, dto);
  }

  @Patch(':id')
  @Auth(ADMIN)
  @ApiOperation({ summary: 'Change a dashboard forge: only the fields sent; a token or App fields replace its credential' })
  @ApiOkResponse({ type: ForgeItem })
  @ApiErrors(400, 401, 403, 404, 409)
  update(@CurrentPrincipal() principal: Principal, @Param('id', new ParseIdPipe(FORGE_NOT_FOUND)) id: number, @Body() dto: UpdateForgeDto): Promise<ForgeItem> {
    return this.dashboard.update(principal, id, dto);
  }

  @Delete(':id')
  @HttpCode(200)
  @Auth(ADMIN)
  @ApiOperation({ summary: 'Delete a dashboard forge and its delivery log (statuses already posted stay on their commits)' })
  @ApiOkResponse({ type: OkResponse })
  @ApiErrors(401, 403, 404)
  async remove(@CurrentPrincipal() principal: Principal, @Param('id', new ParseIdPipe(FORGE_NOT_FOUND)) id: number): Promise<OkResponse> {
    await this.dashboard.remove(principal, id);
    return { ok: true };
  }

  @Get(':id/deliveries')
  @Auth(ADMIN)
  @ApiOperation({ summary: "A dashboard forge's delivery log: its newest 50 attempts, newest first, with the status each carried" })
  @ApiOkResponse({ type: ForgeLog })
  @ApiErrors(401, 403, 404)
  async log(@Param('id', new ParseIdPipe(FORGE_NOT_FOUND)) id: number): Promise<ForgeLog> {
    return { deliveries: await this.forges.log('dashboard', id) };
  }

  @Post(':id/test')
  @HttpCode(200)
  @Auth(ADMIN)
  @ApiOperation({
    summary: "Post a test status (`<context>/test`, success) to a commit of one of a dashboard forge's repositories, once, and answer with the attempt",
    description: "A forge not in use (unreadable secret) or a repository it does not list is 400 naming why. The attempt is kept in the forge's delivery log.",
  })
  @ApiOkResponse({ type: TestStatusResult })
  @ApiErrors(400, 401, 403, 404)
  test(@Param('id', new ParseIdPipe(FORGE_NOT_FOUND)) id: number, @Body() dto: TestStatusDto): Promise<TestStatusResult> {
    return this.forges.sendTestStatus('dashboard', id, dto.repository, dto.commit.toLowerCase());
  }
}

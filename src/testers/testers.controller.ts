import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../common/api/responses';
import { Auth } from '../common/auth/auth.decorator';
import type { Principal } from '../common/auth/principal';
import { CurrentPrincipal } from '../common/auth/principal.decorator';
import { WRITER_ROLES } from '../common/auth/role';
import { ErrorMessages } from '../common/errors/error-messages';
import { ParseIdPipe } from '../common/validation/parse-id.pipe';
import { AddTesterDto, CreateLatestLinkDto, UpdateTesterDto } from './dto/tester.dto';
import { CreatedLatestLink, LatestLinkItem, TesterItem } from './testers.mapper';
import { TesterMessages, TestersService } from './testers.service';

const READ = { cookie: true, pat: 'view' } as const;
const WRITE = { cookie: true, pat: 'builds:write', roles: WRITER_ROLES } as const;
const appId = () => new ParseIdPipe(ErrorMessages.appNotFound);

/** Beyond the spec (docs/integrations.md "Testers"): an app's testers and its "latest build" links. */
@ApiTags('testers')
@Controller('apps/:id')
export class TestersController {
  constructor(private readonly testers: TestersService) {}

  @Get('testers')
  @Auth(READ)
  @ApiOkResponse({ type: [TesterItem], description: 'by e-mail; refusals by the mail server only for Admins' })
  @ApiErrors(400, 401, 403, 404)
  list(@Param('id', appId()) id: number, @CurrentPrincipal() principal: Principal): Promise<TesterItem[]> {
    return this.testers.list(id, principal);
  }

  @Post('testers')
  @Auth(WRITE)
  @ApiOperation({ summary: 'Add a tester (no account needed): e-mailed a share link of their own for each new build of the app' })
  @ApiCreatedResponse({ type: TesterItem })
  @ApiErrors(400, 401, 403, 404, 409)
  add(@Param('id', appId()) id: number, @Body() dto: AddTesterDto, @CurrentPrincipal() principal: Principal): Promise<TesterItem> {
    return this.testers.add(principal, id, dto);
  }

  @Patch('testers/:testerId')
  @Auth(WRITE)
  @ApiOkResponse({ type: TesterItem })
  @ApiErrors(400, 401, 403, 404)
  update(
    @Param('id', appId()) id: number,
    @Param('testerId', new ParseIdPipe(TesterMessages.notFound)) testerId: number,
    @Body() dto: UpdateTesterDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<TesterItem> {
    return this.testers.update(principal, id, testerId, dto);
  }

  @Delete('testers/:testerId')
  @HttpCode(204)
  @Auth(WRITE)
  @ApiNoContentResponse({ description: 'removed; every link the tester was sent is revoked' })
  @ApiErrors(400, 401, 403, 404)
  async remove(@Param('id', appId()) id: number, @Param('testerId', new ParseIdPipe(TesterMessages.notFound)) testerId: number, @CurrentPrincipal() principal: Principal): Promise<void> {
    await this.testers.remove(principal, id, testerId);
  }

  @Get('latest-links')
  @Auth(READ)
  @ApiOkResponse({ type: [LatestLinkItem] })
  @ApiErrors(400, 401, 403, 404)
  latestLinks(@Param('id', appId()) id: number): Promise<LatestLinkItem[]> {
    return this.testers.latestLinks(id);
  }

  @Post('latest-links')
  @Auth(WRITE)
  @ApiOperation({ summary: 'A permanent link to the newest build of the app (or of one branch): `/install/latest/<token>`, shown once' })
  @ApiCreatedResponse({ type: CreatedLatestLink })
  @ApiErrors(400, 401, 403, 404)
  createLatestLink(@Param('id', appId()) id: number, @Body() dto: CreateLatestLinkDto, @CurrentPrincipal() principal: Principal): Promise<CreatedLatestLink> {
    return this.testers.createLatestLink(principal, id, dto);
  }

  @Delete('latest-links/:linkId')
  @HttpCode(204)
  @Auth(WRITE)
  @ApiNoContentResponse({ description: 'revoked: the link answers 410 from now on' })
  @ApiErrors(400, 401, 403, 404)
  async revokeLatestLink(@Param('id', appId()) id: number, @Param('linkId', new ParseIdPipe(TesterMessages.latestNotFound)) linkId: number, @CurrentPrincipal() principal: Principal): Promise<void> {
    await this.testers.revokeLatestLink(principal, id, linkId);
  }
}

import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ApiMultipartBody, binaryFile } from '../common/api/files';
import { ApiErrors, OkResponse } from '../common/api/responses';
import { setSessionCookie } from '../auth/session-cookie';
import { clientAddress } from '../common/net/relay-host';
import { Auth } from '../common/auth/auth.decorator';
import type { Principal } from '../common/auth/principal';
import { CurrentPrincipal } from '../common/auth/principal.decorator';
import { ADMIN_ONLY } from '../common/auth/role';
import { IMAGE_RULES, StoredImagesService } from '../images/stored-images.service';
import { AcceptInvitationFields } from './dto/accept-invitation.dto';
import { CreateInvitationDto } from './dto/create-invitation.dto';
import { ParseIdPipe } from '../common/validation/parse-id.pipe';
import { InvitationMessages } from './invitation-messages';
import { InvitationDetails, InviteResponse, OpenInvitation } from './invitations.mapper';
import { InvitationsService } from './invitations.service';

@ApiTags('invitations')
@Controller()
export class InvitationsController {
  constructor(
    private readonly invitations: InvitationsService,
    private readonly images: StoredImagesService,
  ) {}

  @Post('team/invite')
  @HttpCode(201)
  @Auth({ cookie: true, roles: ADMIN_ONLY })
  @ApiCreatedResponse({ type: InviteResponse, description: 'the invitation expires after 7 days' })
  @ApiErrors(400, 401, 403, 409)
  create(@CurrentPrincipal() principal: Principal, @Body() dto: CreateInvitationDto): Promise<InviteResponse> {
    return this.invitations.create(principal, { email: dto.email, role: dto.role });
  }

  @Get('team/invitations')
  @Auth({ cookie: true, roles: ADMIN_ONLY })
  @ApiOkResponse({ type: [OpenInvitation], description: 'beyond the spec: invitations not yet accepted or expired, newest first' })
  @ApiErrors(401, 403)
  listOpen(): Promise<OpenInvitation[]> {
    return this.invitations.listOpen();
  }

  @Delete('team/invitations/:id')
  @HttpCode(204)
  @Auth({ cookie: true, roles: ADMIN_ONLY })
  @ApiNoContentResponse({ description: 'beyond the spec: the invitation is revoked; its link answers 410' })
  @ApiErrors(400, 401, 403, 404)
  async revoke(@CurrentPrincipal() principal: Principal, @Param('id', new ParseIdPipe(InvitationMessages.notFound)) id: number): Promise<void> {
    await this.invitations.revoke(principal, id);
  }

  @Get('invitations/verify')
  @Auth({ public: true })
  @ApiQuery({ name: 'token', required: true, schema: { type: 'string', pattern: '^[0-9a-fA-F]{64}$' } })
  @ApiOkResponse({ type: InvitationDetails, description: 'the role the invitation grants, the invited address, the team and who invited' })
  @ApiErrors(400, 410)
  verify(@Query('token') token: unknown): Promise<InvitationDetails> {
    return this.invitations.details(token);
  }

  @Post('invitations/accept')
  @HttpCode(200)
  @ApiMultipartBody(
    {
      token: { type: 'string', description: 'the invitation token (64 hex characters)' },
      password: { type: 'string', minLength: 8 },
      display_name: { type: 'string' },
      email: { type: 'string', format: 'email', description: 'only for an invitation created without an e-mail' },
      avatar: binaryFile(`optional; ${IMAGE_RULES.avatar.describe}`),
    },
    ['token', 'password'],
  )
  @Auth({ public: true })
  @ApiOkResponse({ type: OkResponse, description: 'creates the member and sets the svc_token cookie' })
  @ApiErrors(400, 403, 409, 410, 413)
  async accept(@Req() req: Request, @Res({ passthrough: true }) res: Response): Promise<OkResponse> {
    const form = await this.images.receive(req, { avatar: 'avatar' }, AcceptInvitationFields);
    const session = await this.invitations.accept(form, clientAddress(req));
    setSessionCookie(req, res, session.token);
    return { ok: true };
  }
}

import { Body, Controller, Get, HttpCode, Post, Query, Req, Res } from '@nestjs/common';
import { ApiConsumes, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { setSessionCookie } from '../auth/session-cookie';
import { Auth } from '../common/auth/auth.decorator';
import type { Principal } from '../common/auth/principal';
import { CurrentPrincipal } from '../common/auth/principal.decorator';
import { ADMIN_ONLY, Role } from '../common/auth/role';
import { badRequest } from '../common/errors/relay-exception';
import { StoredImagesService } from '../uploads/stored-images.service';
import { CreateInvitationDto } from './dto/create-invitation.dto';
import { InvitationCreated, InvitationMessages, InvitationsService } from './invitations.service';

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
  create(@CurrentPrincipal() principal: Principal, @Body() dto: CreateInvitationDto): Promise<InvitationCreated> {
    return this.invitations.create(principal, { email: dto.email, role: dto.role });
  }

  @Get('invitations/verify')
  @Auth({ public: true })
  async verify(@Query('token') token: unknown): Promise<{ role: Role }> {
    if (typeof token !== 'string' || !token) throw badRequest(InvitationMessages.tokenRequired);
    const invitation = await this.invitations.usable(token);
    return { role: invitation.role };
  }

  @Post('invitations/accept')
  @HttpCode(200)
  @ApiConsumes('multipart/form-data')
  @Auth({ public: true })
  async accept(@Req() req: Request, @Res({ passthrough: true }) res: Response): Promise<{ ok: true }> {
    const session = await this.invitations.accept(await this.images.receive(req, { avatar: 'avatar' }));
    setSessionCookie(req, res, session.token);
    return { ok: true };
  }
}

import { Controller, Get, Query, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { Auth } from '../common/auth/auth.decorator';
import { formSubmitScript, sendLinkPage } from '../common/html/link-page';
import { escapeHtml } from '../common/html/escape-html';
import { InvitationsService } from './invitations.service';

const SCRIPT = formSubmitScript({
  json: false,
  successHtml: 'You are signed in. <a href="/">Open the relay</a>.',
});

/** `/invite?token=…` at the relay root: the page an invitation link opens (spec §4 Team). */
@ApiExcludeController()
@Controller('invite')
export class InvitePageController {
  constructor(private readonly invitations: InvitationsService) {}

  @Get()
  @Auth({ public: true })
  async page(@Query('token') token: unknown, @Res() res: Response): Promise<void> {
    const invitation = await this.invitations.findUsable(token);
    if (!invitation) {
      sendLinkPage(res, {
        status: 410,
        title: 'Invitation',
        body: '<p>This invitation has expired, was already used, or does not exist. Ask an Admin for a new one.</p>',
      });
      return;
    }
    const emailField = invitation.email
      ? `<p>You will sign in as <strong>${escapeHtml(invitation.email)}</strong>.</p>`
      : '<label for="email">E-mail</label><input id="email" name="email" type="email" required autocomplete="email">';
    sendLinkPage(res, {
      status: 200,
      title: 'Join the team',
      body:
        `<p>You are invited as <strong>${escapeHtml(invitation.role)}</strong>.</p>` +
        '<form id="form" method="post" action="/api/v1/invitations/accept" enctype="multipart/form-data">' +
        `<input type="hidden" name="token" value="${escapeHtml(String(token).toLowerCase())}">` +
        emailField +
        '<label for="display_name">Display name (optional)</label><input id="display_name" name="display_name" autocomplete="name">' +
        '<label for="password">Password (at least 8 characters)</label>' +
        '<input id="password" name="password" type="password" minlength="8" required autocomplete="new-password">' +
        '<label for="avatar">Profile image (optional, PNG or JPEG, up to 2 MB)</label>' +
        '<input id="avatar" name="avatar" type="file" accept="image/png,image/jpeg">' +
        '<button type="submit">Join</button></form><p id="result" role="status"></p>',
      script: SCRIPT,
    });
  }
}

import { Controller, Get, Query, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { Auth } from '../common/auth/auth.decorator';
import { escapeHtml } from '../common/html/escape-html';
import { formSubmitScript, sendLinkPage } from '../common/html/link-page';
import { PasswordResetService } from './password-reset.service';

const SCRIPT = formSubmitScript({
  json: true,
  successHtml: 'Your password was changed. <a href="/">Sign in</a> with it.',
});

/** `/reset-password?token=…` at the relay root: the page a reset link opens. */
@ApiExcludeController()
@Controller('reset-password')
export class ResetPageController {
  constructor(private readonly resets: PasswordResetService) {}

  @Get()
  @Auth({ public: true })
  async page(@Query('token') token: unknown, @Res() res: Response): Promise<void> {
    if (!(await this.resets.findUsable(token))) {
      sendLinkPage(res, {
        status: 410,
        title: 'Reset password',
        body: '<p>This link has expired, was already used, or was replaced by a newer one. Ask an Admin for a new link.</p>',
      });
      return;
    }
    sendLinkPage(res, {
      status: 200,
      title: 'Choose a new password',
      body:
        '<p>Choosing a new password signs you out everywhere and revokes your access tokens.</p>' +
        '<form id="form" method="post" action="/api/v1/auth/reset-password">' +
        `<input type="hidden" name="token" value="${escapeHtml(String(token).toLowerCase())}">` +
        '<label for="password">New password (at least 8 characters)</label>' +
        '<input id="password" name="password" type="password" minlength="8" required autocomplete="new-password">' +
        '<button type="submit">Set password</button></form><p id="result" role="status"></p>',
      script: SCRIPT,
    });
  }
}

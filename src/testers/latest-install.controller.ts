import { Controller, Get, Headers, HttpException, Param, Post, Query, Res } from '@nestjs/common';
import { ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { BUILD_FILE_CONTENT_TYPES } from '../builds/build-download.service';
import { ApiFileResponse } from '../common/api/files';
import { ApiErrors } from '../common/api/responses';
import { Auth } from '../common/auth/auth.decorator';
import { sendRenderedPage } from '../dashboard/dashboard';
import { installPage, messagePage, unavailablePage } from '../share-links/install-page';
import { LatestBuildService } from './latest-build.service';
import { TestersService } from './testers.service';

const HTML = { 'text/html': { schema: { type: 'string' as const } } };

/** Public pages at the relay root for testers (docs/integrations.md "Testers"): the latest-build link and the one-click unsubscribe. */
@ApiTags('testers')
@Controller()
export class LatestInstallController {
  constructor(
    private readonly latest: LatestBuildService,
    private readonly testers: TestersService,
  ) {}

  @Get('install/latest/:token')
  @Auth({ public: true })
  @ApiResponse({ status: 200, content: HTML, description: 'the install page of the newest build of the link\'s app (and branch)' })
  @ApiResponse({ status: 404, content: HTML, description: 'a page: no such link, or no build yet' })
  @ApiResponse({ status: 410, content: HTML, description: 'the link was revoked' })
  async show(@Param('token') token: string, @Headers('user-agent') userAgent: string | undefined, @Res() res: Response): Promise<void> {
    try {
      const shared = await this.latest.page(token);
      sendRenderedPage(res, 200, (nonce) => installPage(shared, nonce, { userAgent }));
    } catch (err) {
      if (!(err instanceof HttpException) || ![404, 410].includes(err.getStatus())) throw err;
      sendRenderedPage(res, err.getStatus(), (nonce) => unavailablePage(err.getStatus(), err.message, nonce));
    }
  }

  @Get('install/latest/:token/download')
  @Auth({ public: true })
  @ApiFileResponse(BUILD_FILE_CONTENT_TYPES, 'the build the page showed (`build`), or the newest one')
  @ApiErrors(404, 410)
  async download(@Param('token') token: string, @Query('build') build: unknown, @Res() res: Response): Promise<void> {
    await this.latest.download(token, build, res);
  }

  @Get('unsubscribe/:token')
  @Auth({ public: true })
  @ApiResponse({ status: 200, content: HTML, description: 'the tester is unsubscribed (no more notices of this app)' })
  @ApiResponse({ status: 404, content: HTML, description: 'no tester has this token (a newer notice replaced it, or the tester was removed)' })
  async unsubscribePage(@Param('token') token: string, @Res() res: Response): Promise<void> {
    await this.unsubscribe(token, res);
  }

  /** RFC 8058: mail clients' one-click unsubscribe POSTs `List-Unsubscribe=One-Click` here. */
  @Post('unsubscribe/:token')
  @Auth({ public: true })
  @ApiResponse({ status: 200, content: HTML, description: 'as GET' })
  @ApiResponse({ status: 404, content: HTML, description: 'as GET' })
  async unsubscribeOneClick(@Param('token') token: string, @Res() res: Response): Promise<void> {
    await this.unsubscribe(token, res);
  }

  private async unsubscribe(token: string, res: Response): Promise<void> {
    const tester = await this.testers.unsubscribe(token);
    if (!tester) return sendRenderedPage(res, 404, (nonce) => unavailablePage(404, 'This unsubscribe link is not valid', nonce));
    sendRenderedPage(res, 200, (nonce) => messagePage('Unsubscribed', `${tester.email} will get no more e-mails about new builds of this app.`, nonce));
  }
}

import { Controller, Get, HttpException, Param, Res } from '@nestjs/common';
import { ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Auth } from '../common/auth/auth.decorator';
import { sendRenderedPage } from '../dashboard/dashboard';
import { installPage, unavailablePage } from './install-page';
import { ShareLinksService } from './share-links.service';

/** Every answer of the install page is a page, refusals included (a person opened the link). */
const HTML = { 'text/html': { schema: { type: 'string' as const } } };

/** `GET /install/<token>` at the relay root: the page a share link opens (HTML, not JSON). */
@ApiTags('share links')
@Controller('install')
export class InstallPageController {
  constructor(private readonly shareLinks: ShareLinksService) {}

  @Get(':token')
  @Auth({ public: true })
  @ApiResponse({ status: 200, content: HTML, description: 'the install page: icon, name, version, size, label, upload time and a Download button' })
  @ApiResponse({ status: 404, content: HTML, description: 'a page saying the link is not valid' })
  @ApiResponse({ status: 410, content: HTML, description: 'a page saying the link expired, was revoked, or its build was deleted' })
  async show(@Param('token') token: string, @Res() res: Response): Promise<void> {
    try {
      const shared = await this.shareLinks.shared(token);
      sendRenderedPage(res, 200, (nonce) => installPage(shared, nonce));
    } catch (err) {
      // A person opened this link: the refusal is a page, with the API's status and message.
      if (!(err instanceof HttpException) || (err.getStatus() !== 404 && err.getStatus() !== 410)) throw err;
      sendRenderedPage(res, err.getStatus(), (nonce) => unavailablePage(err.getStatus(), err.message, nonce));
    }
  }
}

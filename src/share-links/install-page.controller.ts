import { Controller, Get, Headers, HttpException, Param, Post, Req, Res } from '@nestjs/common';
import { ApiResponse, ApiTags } from '@nestjs/swagger';
import { urlencoded, type Request, type Response } from 'express';
import { Auth } from '../common/auth/auth.decorator';
import { HttpError } from '../common/errors/http-error';
import { clientAddress } from '../common/net/relay-host';
import { sendRenderedPage } from '../dashboard/dashboard';
import { installPage, LOCAL_TIMES_SCRIPT, unavailablePage } from './install-page';
import type { SharedBuild } from './share-links.service';
import { ShareLinksService } from './share-links.service';

/** Every answer of the install page is a page, refusals included (a person opened the link). */
const HTML = { 'text/html': { schema: { type: 'string' as const } } };
/** The password form's body: one short field. */
const parseForm = urlencoded({ extended: false, limit: '4kb' });

/** `GET /install/<token>` at the relay root: the page a share link opens (HTML, not JSON). */
@ApiTags('share links')
@Controller('install')
export class InstallPageController {
  constructor(private readonly shareLinks: ShareLinksService) {}

  /** Two path segments: never taken for a token. */
  @Get('script/local-times.js')
  @Auth({ public: true })
  @ApiResponse({ status: 200, content: { 'text/javascript': { schema: { type: 'string' } } }, description: "the install page's script: times in the visitor's time zone" })
  localTimes(@Res() res: Response): void {
    res.status(200).set({ 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'public, max-age=3600', 'X-Content-Type-Options': 'nosniff' });
    res.send(LOCAL_TIMES_SCRIPT);
  }

  @Get(':token')
  @Auth({ public: true })
  @ApiResponse({ status: 200, content: HTML, description: "the install page: team, icon, name, version, what to test, and a Download button (a link with a password: the team and a password form)" })
  @ApiResponse({ status: 404, content: HTML, description: 'a page saying the link is not valid' })
  @ApiResponse({ status: 410, content: HTML, description: 'a page saying the link expired, was revoked, reached its download limit, or its build was deleted' })
  async show(@Param('token') token: string, @Headers('user-agent') userAgent: string | undefined, @Res() res: Response): Promise<void> {
    await this.render(res, userAgent, () => this.shareLinks.shared(token));
  }

  @Post(':token')
  @Auth({ public: true })
  @ApiResponse({ status: 200, content: HTML, description: 'the form field `password` was right: the install page, its download open for an hour' })
  @ApiResponse({ status: 401, content: HTML, description: 'the password form again, saying the password was wrong' })
  @ApiResponse({ status: 429, content: HTML, description: 'too many wrong passwords from this address for this link (Retry-After)' })
  async unlock(@Param('token') token: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const password = await new Promise<unknown>((resolve) => parseForm(req, res, (err?: unknown) => resolve(err ? undefined : (req.body as Record<string, unknown> | undefined)?.password)));
    await this.render(res, req.headers['user-agent'], async () => {
      try {
        return await this.shareLinks.unlock(token, password, clientAddress(req));
      } catch (err) {
        if (!(err instanceof HttpError) || err.getStatus() !== 401) throw err;
        // The form again, saying so: the link itself is fine.
        return { shared: await this.shareLinks.shared(token), status: 401, passwordError: err.message };
      }
    });
  }

  private async render(
    res: Response,
    userAgent: string | undefined,
    load: () => Promise<SharedBuild | { shared: SharedBuild; status: number; passwordError: string }>,
  ): Promise<void> {
    try {
      const loaded = await load();
      const { shared, status, passwordError } = 'shared' in loaded ? loaded : { shared: loaded, status: 200, passwordError: undefined };
      sendRenderedPage(res, status, (nonce) => installPage(shared, nonce, { userAgent, passwordError }));
    } catch (err) {
      // A person opened this link: the refusal is a page, with the API's status and message.
      if (!(err instanceof HttpException) || ![404, 410, 429].includes(err.getStatus())) throw err;
      if (err instanceof HttpError) res.set(err.headers);
      sendRenderedPage(res, err.getStatus(), (nonce) => unavailablePage(err.getStatus(), err.message, nonce));
    }
  }
}

import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { BUILD_FILE_CONTENT_TYPES } from '../builds/build-download.service';
import { ApiFileResponse } from '../common/api/files';
import { ApiErrors } from '../common/api/responses';
import { Auth } from '../common/auth/auth.decorator';
import type { Principal } from '../common/auth/principal';
import { CurrentPrincipal } from '../common/auth/principal.decorator';
import { WRITER_ROLES } from '../common/auth/role';
import { ErrorMessages } from '../common/errors/error-messages';
import { ParseIdPipe } from '../common/validation/parse-id.pipe';
import { CreateShareLinkDto } from './dto/create-share-link.dto';
import { ShareLinkMessages } from './share-link-messages';
import { ShareLink } from './share-links.mapper';
import { ShareLinksService } from './share-links.service';

/** Beyond the spec (docs/builds.md "Share links"): who may share a build, and the public download. */
@ApiTags('share links')
@Controller()
export class ShareLinksController {
  constructor(private readonly shareLinks: ShareLinksService) {}

  @Post('builds/:id/share-links')
  @Auth({ cookie: true, pat: 'builds:write', roles: WRITER_ROLES })
  @ApiCreatedResponse({ type: ShareLink, description: 'the link, valid 7 days unless expires_in_days says otherwise; writers can copy it again from the list when resendable' })
  @ApiErrors(400, 401, 403, 404)
  create(
    @Param('id', new ParseIdPipe(ErrorMessages.buildNotFound)) id: number,
    @Body() dto: CreateShareLinkDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<ShareLink> {
    return this.shareLinks.create(id, principal, { days: dto.expires_in_days, password: dto.password, downloadLimit: dto.download_limit });
  }

  @Get('builds/:id/share-links')
  @Auth({ cookie: true, pat: 'builds:write' })
  @ApiOkResponse({
    type: [ShareLink],
    description: 'newest first, revoked and expired links included; url and path only for writers, of live resendable links',
  })
  @ApiErrors(400, 401, 403, 404)
  list(@Param('id', new ParseIdPipe(ErrorMessages.buildNotFound)) id: number, @CurrentPrincipal() principal: Principal): Promise<ShareLink[]> {
    return this.shareLinks.list(id, principal);
  }

  @Delete('builds/:id/share-links/:linkId')
  @HttpCode(204)
  @Auth({ cookie: true, pat: 'builds:write', roles: WRITER_ROLES })
  @ApiNoContentResponse({ description: 'revoked: the link answers 410 from now on' })
  @ApiErrors(400, 401, 403, 404)
  async revoke(
    @Param('id', new ParseIdPipe(ErrorMessages.buildNotFound)) id: number,
    @Param('linkId', new ParseIdPipe(ShareLinkMessages.notFound)) linkId: number,
    @CurrentPrincipal() principal: Principal,
  ): Promise<void> {
    await this.shareLinks.revoke(principal, id, linkId);
  }

  /** Public: the token is the only credential, and it opens this build's file and nothing else. */
  @Get('share/:token/download')
  @Auth({ public: true })
  @ApiFileResponse(
    BUILD_FILE_CONTENT_TYPES,
    'the shared build file (Range requests answered 206); a GET from the first byte counts one download; 410 past the download limit',
  )
  @ApiQuery({ name: 'grant', required: false, description: 'for a link with a password: given by its install page once the password was entered' })
  @ApiErrors(401, 404, 410)
  async download(@Param('token') token: string, @Query('grant') grant: unknown, @Req() req: Request, @Res() res: Response): Promise<void> {
    await this.shareLinks.download(token, grant, req, res);
  }
}

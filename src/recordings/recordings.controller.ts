import { Controller, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Auth } from '../common/auth/auth.decorator';
import type { Principal } from '../common/auth/principal';
import { CurrentPrincipal } from '../common/auth/principal.decorator';
import { sendFileFailure, type SendFileError } from '../common/errors/send-file-failure';
import { Recording } from './recordings.mapper';
import { RecordingsService, UploadQuery } from './recordings.service';

/** spec §4 Recordings. Session cookie only (§5.3 gives recordings no PAT scope). */
@ApiTags('recordings')
@Controller('recordings')
export class RecordingsController {
  constructor(private readonly recordings: RecordingsService) {}

  @Post('upload')
  @HttpCode(200)
  @Auth({ cookie: true })
  upload(
    @Req() req: Request,
    @Query() query: UploadQuery,
    @CurrentPrincipal() principal: Principal,
  ): Promise<{ url: string }> {
    return this.recordings.upload(req, query, principal.userId);
  }

  @Get()
  @Auth({ cookie: true })
  list(@Query('buildId') buildId: unknown): Promise<Recording[]> {
    return this.recordings.list(buildId);
  }

  /** The file, with Range support (206 / 416) so browsers can seek. */
  @Get(':filename')
  @Auth({ cookie: true })
  async download(@Param('filename') filename: string, @Res() res: Response): Promise<void> {
    const file = await this.recordings.file(filename);
    const headers = {
      'Content-Type': file.mime,
      'X-Content-Type-Options': 'nosniff',
      'Content-Security-Policy': "default-src 'none'; sandbox",
      'Cache-Control': 'private, no-cache',
    };
    await new Promise<void>((done) => {
      res.sendFile(file.path, { acceptRanges: true, dotfiles: 'deny', headers }, (err?: SendFileError) => {
        if (err && !res.headersSent) sendFileFailure(res, err, 'Recording not found');
        done();
      });
    });
  }
}

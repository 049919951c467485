import { Controller, Get, Param, Res } from '@nestjs/common';
import { ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiFileResponse } from '../common/api/files';
import { ApiErrors } from '../common/api/responses';
import type { Response } from 'express';
import { pipeline } from 'node:stream/promises';
import { Auth } from '../common/auth/auth.decorator';
import { notFound } from '../common/errors/http-error';
import { IMAGE_MIME } from './image-type';
import { StoredImagesService } from './stored-images.service';

/**
 * Stored images at the relay root (spec §4 Other surfaces): cookie or PAT(view). Served with the
 * type the relay sniffed, `nosniff` and a sandboxing CSP, so an uploaded file never runs as a page.
 */
@ApiTags('uploads')
@Controller('uploads')
export class ImagesController {
  constructor(private readonly images: StoredImagesService) {}

  @Get('*path')
  @Auth({ cookie: true, pat: 'view' })
  @ApiParam({ name: 'path', type: String, example: 'avatars/0123abcd.png', description: 'path under /uploads/' })
  @ApiFileResponse(Object.values(IMAGE_MIME), 'a stored avatar, team logo or comment attachment')
  @ApiErrors(401, 403, 404)
  async serve(@Param('path') path: string[] | string, @Res() res: Response): Promise<void> {
    const relative = Array.isArray(path) ? path.join('/') : path;
    const file = await this.images.resolveServed(relative);
    const body = file ? await this.images.open(file).catch(() => null) : null;
    if (!file || !body) throw notFound();
    res.status(200);
    res.setHeader('Content-Type', file.mime);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
    res.setHeader('Content-Disposition', 'inline');
    res.setHeader('Cache-Control', 'private, no-cache');
    res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
    await pipeline(body, res).catch(() => res.destroy());
  }
}

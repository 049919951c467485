import { Injectable } from '@nestjs/common';
import type { Response } from 'express';
import { ErrorMessages } from '../common/errors/error-messages';
import { notFound } from '../common/errors/http-error';
import { BuildQueryService } from './build-query.service';
import { BuildFiles } from './build-files';

const CONTENT_TYPES: [suffix: string, type: string][] = [
  ['.apk', 'application/vnd.android.package-archive'],
  ['.zip', 'application/zip'],
  ['.gz', 'application/gzip'],
  ['.tgz', 'application/gzip'],
];

/** Every Content-Type a build download can carry (for the OpenAPI document). */
export const BUILD_FILE_CONTENT_TYPES = [...new Set(CONTENT_TYPES.map(([, type]) => type)), 'application/octet-stream'];

/**
 * Streams a build's file: Content-Length, Range (via Express's `send`), and a Content-Disposition
 * carrying the original file name, RFC 6266-encoded (the name never reaches a header raw).
 */
@Injectable()
export class BuildDownloadService {
  constructor(
    private readonly query: BuildQueryService,
    private readonly files: BuildFiles,
  ) {}

  /** The SHA-256 of a build's stored file, to check what an agent installed against (hub sessions); 404 when it is gone. */
  async sha256(id: number): Promise<string> {
    const build = await this.query.get(id);
    const digest = await this.files.sha256(build.fileName);
    if (!digest) throw notFound(ErrorMessages.buildNotFound);
    return digest;
  }

  /** `beforeStream` runs once the file is known to exist, just before its bytes go out (share links count downloads there). */
  async send(id: number, res: Response, beforeStream?: () => Promise<unknown>): Promise<void> {
    const build = await this.query.get(id);
    if ((await this.files.modifiedMs(build.fileName)) === null) throw notFound(ErrorMessages.buildNotFound);
    await beforeStream?.();
    const type = CONTENT_TYPES.find(([suffix]) => build.fileName.endsWith(suffix))?.[1] ?? 'application/octet-stream';
    const downloadName = build.originalName || `build-${build.id}${build.fileName.slice(build.fileName.indexOf('.'))}`;
    await this.files.send(
      res,
      build.fileName,
      {
        downloadName,
        dotfiles: 'allow',
        headers: { 'Content-Type': type, 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'private, no-store' },
      },
      ErrorMessages.buildNotFound,
    );
  }
}

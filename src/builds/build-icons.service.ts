import { Injectable } from '@nestjs/common';
import type { Response } from 'express';
import { notFound } from '../common/errors/http-error';
import type { BuildIconEntity } from './build-icon.entity';
import { BuildsRepository } from './builds.repository';

export const NO_ICON = 'No icon';

/** Caching of an icon: a build's never changes; an app's follows its newest build, so it revalidates (ETag). */
export type IconCaching = 'immutable' | 'revalidate';

const CACHE_CONTROL: Record<IconCaching, string> = {
  immutable: 'private, max-age=31536000, immutable',
  revalidate: 'private, no-cache',
};

/** Launcher icons read at upload (docs/builds.md "App icons"): a build's own, and an app's newest. */
@Injectable()
export class BuildIconsService {
  constructor(private readonly builds: BuildsRepository) {}

  async sendBuildIcon(buildId: number, res: Response): Promise<void> {
    send(res, await this.builds.iconOf(buildId), 'immutable');
  }

  /** The build's icon as a `data:` URL (icons are tens of KB), for pages that embed it; null when it has none. */
  async dataUrlOf(buildId: number): Promise<string | null> {
    const icon = await this.builds.iconOf(buildId);
    return icon ? `data:${icon.mime};base64,${icon.dataBase64}` : null;
  }

  /** The icon of the app's most recently uploaded build that has one. */
  async sendAppIcon(appId: number, res: Response): Promise<void> {
    send(res, await this.builds.latestIconOfApp(appId), 'revalidate');
  }
}

/** 200 with the bytes, or 304 when the client's If-None-Match holds the same ETag (Express checks freshness). */
function send(res: Response, icon: BuildIconEntity | null, caching: IconCaching): void {
  if (!icon) throw notFound(NO_ICON);
  res
    .status(200)
    .set({
      'Content-Type': icon.mime,
      'Cache-Control': CACHE_CONTROL[caching],
      ETag: `"${icon.sha256}"`,
      'X-Content-Type-Options': 'nosniff',
      'Content-Security-Policy': "default-src 'none'; sandbox",
    })
    .send(Buffer.from(icon.dataBase64, 'base64'));
}

import { Injectable } from '@nestjs/common';
import type { Response } from 'express';
import { BuildDownloadService } from '../builds/build-download.service';
import { BuildQueryService } from '../builds/build-query.service';
import type { BuildEntity } from '../builds/build.entity';
import { linkTokenHash } from '../common/crypto/link-token';
import { gone, notFound } from '../common/errors/http-error';
import { type SharedBuild, ShareLinksService } from '../share-links/share-links.service';
import { LATEST_LINK_PATH } from './testers.service';
import { TestersRepository } from './testers.repository';

export const LatestLinkMessages = {
  notValid: 'This link is not valid',
  revoked: 'This link was revoked',
  noBuild: 'There is no build for this link yet',
} as const;

/**
 * What a "latest build" link opens: the newest build of its app (and branch) at the moment it is
 * opened, so it follows every upload. The download names the build the page showed (a page opened
 * before the next upload still downloads what it showed), and only a build the link would show.
 */
@Injectable()
export class LatestBuildService {
  constructor(
    private readonly testers: TestersRepository,
    private readonly builds: BuildQueryService,
    private readonly downloads: BuildDownloadService,
    private readonly shareLinks: ShareLinksService,
  ) {}

  async page(token: string): Promise<SharedBuild> {
    const { build } = await this.newest(token);
    return this.shareLinks.pageOf(build, `${LATEST_LINK_PATH}/${token}/download?build=${build.id}`);
  }

  async download(token: string, buildId: unknown, res: Response): Promise<void> {
    const { link } = await this.newest(token);
    const id = typeof buildId === 'string' && /^\d{1,15}$/.test(buildId) ? Number(buildId) : null;
    let build: BuildEntity | null = null;
    if (id !== null) {
      const listed = await this.builds.detail(id).catch(() => null);
      const matches = listed && listed.build.appId === link.appId && (link.branch === null || listed.provenance?.branch === link.branch);
      if (matches) build = await this.builds.get(id);
    }
    build ??= (await this.newest(token)).build;
    await this.downloads.send(build.id, res);
  }

  private async newest(token: string) {
    const hash = linkTokenHash(token);
    const link = hash ? await this.testers.latestByHash(hash) : null;
    if (!link) throw notFound(LatestLinkMessages.notValid);
    if (link.revokedAt !== null) throw gone(LatestLinkMessages.revoked);
    const { items } = await this.builds.list({ app_id: link.appId, branch: link.branch ?? undefined, limit: 1, sort: 'uploaded_at', dir: 'desc' });
    if (!items.length) throw notFound(LatestLinkMessages.noBuild);
    return { link, build: await this.builds.get(items[0].build.id) };
  }
}

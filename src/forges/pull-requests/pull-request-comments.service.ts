import { Injectable, Logger } from '@nestjs/common';
import { BuildVerdictsService } from '../../builds/provenance/build-verdicts.service';
import { Clock } from '../../common/clock';
import { PublicUrlService } from '../../relay/public-url.service';
import { ShareLinksService } from '../../share-links/share-links.service';
import { BuildChangesReader } from '../changes/build-changes-reader';
import { ForgeDirectory } from '../forge-directory';
import { GIVE_UP_AFTER_MS, judgeFailure } from '../../outbox/retry-policy';
import { COMMENT_MARKER, CommentBuild, renderPullRequestComment } from './pull-request-comment';
import type { ForgePullRequestEntity } from './pull-request.entity';
import { ForgePullRequestRepository } from './pull-request.repository';

/**
 * Writes each pull request's one comment: created the first time, edited in place after (the
 * forge's comment id is kept), whenever one of its builds is uploaded, reviewed or commented on.
 * Each build gets one share link for the comment, made once with its uploader as the creator.
 * Retried like the statuses (the same policy); queued in forge_pull_requests.
 */
@Injectable()
export class PullRequestComments {
  private readonly logger = new Logger('Forges');

  constructor(
    private readonly directory: ForgeDirectory,
    private readonly rows: ForgePullRequestRepository,
    private readonly verdicts: BuildVerdictsService,
    private readonly shareLinks: ShareLinksService,
    private readonly publicUrl: PublicUrlService,
    private readonly changes: BuildChangesReader,
    private readonly clock: Clock,
  ) {}

  /** Writes every comment that is due; stops early when `stopped()` says so. */
  async writeDue(stopped: () => boolean): Promise<void> {
    for (const row of await this.rows.due(this.clock.now(), 20)) {
      if (stopped()) return;
      await this.write(row);
    }
  }

  private async write(row: ForgePullRequestEntity): Promise<void> {
    const entry = this.directory.forRepository(row.repository);
    if (!entry?.client) return this.rows.failed(row, entry ? `forge not used: ${entry.problem}` : 'no configured forge lists this repository', null);
    try {
      const body = renderPullRequestComment(await this.buildsOf(row));
      // Never written by this relay as far as it knows: a crash may have come between the forge creating it and the id being kept.
      const known = row.commentId ?? (await entry.client.findComment(row.repository, row.number, COMMENT_MARKER));
      const commentId = await entry.client.upsertComment(row.repository, row.number, known, body);
      await this.rows.written(row, commentId, (await this.rows.find(row.repository, row.number))?.installLinks ?? row.installLinks);
    } catch (err) {
      const verdict = judgeFailure(err, row.attempts + 1, this.clock.nowMs());
      const retryAt = verdict.retryAfterMs === null || verdict.retryAfterMs > GIVE_UP_AFTER_MS ? null : new Date(this.clock.nowMs() + verdict.retryAfterMs);
      if (!retryAt) this.logger.warn(`Pull request comment ${row.repository}#${row.number} not written: ${verdict.error}`);
      await this.rows.failed(row, verdict.error.slice(0, 500), retryAt);
    }
  }

  /** The pull request's builds with their page and install links (share links made now for builds without one). */
  private async buildsOf(row: ForgePullRequestEntity): Promise<CommentBuild[]> {
    const base = this.publicUrl.publicBaseUrl();
    const links = JSON.parse(row.installLinks) as Record<string, string>;
    const builds: CommentBuild[] = [];
    let made = false;
    for (const build of await this.verdicts.buildsOfPullRequest(row.repository, row.number)) {
      if (base && !links[build.id]) {
        const uploader = await this.verdicts.uploaderOf(build.id);
        const link = uploader ? await this.shareLinks.create(build.id, uploader) : null;
        if (link?.url) {
          links[build.id] = link.url;
          made = true;
        }
      }
      const changed = await this.changes.of(build.id).catch(() => null);
      builds.push({
        ...build,
        pageUrl: base ? `${base}/builds/${build.id}` : null,
        installUrl: links[build.id] ?? null,
        changes: changed?.source === 'forge' && changed.base_build_id !== null ? { baseBuildId: changed.base_build_id, commits: changed.commits } : null,
      });
    }
    // Kept before the forge is asked: a link made is never made again, whatever the answer.
    if (made) await this.rows.keepLinks(row.id, JSON.stringify(links));
    return builds;
  }
}

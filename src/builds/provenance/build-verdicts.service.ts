import { Injectable } from '@nestjs/common';
import type { BuildEntity } from '../build.entity';
import type { Platform } from '../../app-catalogue/platform';
import type { BuildStatus } from '../build-status';
import { BuildContentsRepository } from '../contents/build-contents.repository';
import type { BuildProvenanceEntity } from './build-provenance.entity';
import { BuildVerdictsRepository } from './build-verdicts.repository';

/** One build of a commit as a forge status shows it. */
export interface CommitBuild {
  id: number;
  appId: number;
  name: string;
  platform: Platform;
  versionName: string | null;
  buildNumber: string | null;
  status: BuildStatus | null;
  /** Who set the current status (display name or e-mail as kept), null when nobody has since the upload. */
  decidedBy: string | null;
  provenance: BuildProvenanceEntity;
  /** The reasons of the flags its comparison with the build before it raised at upload (issue 28); empty when none. */
  flags: string[];
}

/**
 * What the forges module reads of builds (docs/integrations.md "Forges"): the status history as a
 * durable feed (each entry committed with its change, so a verdict is never lost between its commit
 * and its delivery), and the builds of one commit with their provenance.
 */
@Injectable()
export class BuildVerdictsService {
  constructor(
    private readonly rows: BuildVerdictsRepository,
    private readonly contents: BuildContentsRepository,
  ) {}

  /** Status-history entries after `afterId` (uploads and changes), oldest first: their ids and builds. */
  changesAfter(afterId: number, limit: number): Promise<{ id: number; buildId: number }[]> {
    return this.rows.changesAfter(afterId, limit);
  }

  /** The newest history entry's id (0 when none). */
  lastChangeId(): Promise<number> {
    return this.rows.lastChangeId();
  }

  provenanceOf(buildId: number): Promise<BuildProvenanceEntity | null> {
    return this.rows.provenanceOf(buildId);
  }

  /** Every build uploaded with this repository and commit, oldest first, with who decided each. */
  buildsOfCommit(repository: string, commit: string): Promise<CommitBuild[]> {
    return this.buildsWhere({ repository, commit });
  }

  /** Every build uploaded for this pull request, oldest first. */
  buildsOfPullRequest(repository: string, pullRequest: number): Promise<CommitBuild[]> {
    return this.buildsWhere({ repository, pullRequest });
  }

  /** Who uploaded the build (its first history entry): the live account while it exists. */
  async uploaderOf(buildId: number): Promise<{ userId: number | null; email: string; displayName: string | null } | null> {
    const [first] = await this.rows.changesOf(buildId, 1);
    if (!first) return null;
    return first.changedBy
      ? { userId: first.changedBy.id, email: first.changedBy.email, displayName: first.changedBy.displayName }
      : { userId: null, email: first.changedByEmail, displayName: first.changedByDisplayName };
  }

  /**
   * "What changed" (docs/integrations.md): the build's provenance, and the newest Done build of the
   * same app and platform uploaded before it from the same repository with a commit (its base). Null
   * when there is no such build.
   */
  async baseOf(buildId: number): Promise<{ build: BuildEntity; provenance: BuildProvenanceEntity | null; base: { buildId: number; commit: string } | null } | null> {
    const build = await this.rows.build(buildId);
    if (!build) return null;
    const provenance = await this.rows.provenanceOf(buildId);
    if (!provenance?.repository || !provenance.commit) return { build, provenance, base: null };
    return { build, provenance, base: await this.rows.lastDoneWithCommit(build, provenance.repository) };
  }

  private async buildsWhere(where: { repository: string; commit?: string; pullRequest?: number }): Promise<CommitBuild[]> {
    const rows = await this.rows.provenanceWhere(where);
    if (!rows.length) return [];
    const builds = await this.rows.buildsWithIds(rows.map((r) => r.buildId));
    const byId = new Map(builds.map((b) => [b.id, b]));
    const flags = await this.contents.flagsOf(builds.map((b) => b.id));
    const result: CommitBuild[] = [];
    for (const row of rows) {
      const build = byId.get(row.buildId);
      if (!build) continue;
      // The newest entry names who decided, unless it is the upload's own (the only entry).
      const [last, earlier] = await this.rows.changesOf(build.id, 2, true);
      const who = earlier ? (last.changedBy ?? { displayName: last.changedByDisplayName, email: last.changedByEmail }) : null;
      result.push({
        id: build.id,
        appId: build.appId,
        name: build.name,
        platform: build.platform,
        versionName: build.versionName,
        buildNumber: build.buildNumber,
        status: build.statusLabel,
        decidedBy: who ? who.displayName || who.email.split('@')[0] : null,
        provenance: row,
        flags: (flags.get(build.id) ?? []).map((flag) => flag.reason),
      });
    }
    return result;
  }
}

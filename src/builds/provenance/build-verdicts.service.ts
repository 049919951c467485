import { Injectable } from '@nestjs/common';
import type { Platform } from '../../app-catalogue/platform';
import type { BuildStatus } from '../build-status';
import { BuildContentsRepository } from '../contents/build-contents.repository';
import { BuildProvenanceEntity } from './build-provenance.entity';
import { BuildVerdictsRepository, ChangeAuthor } from './build-verdicts.repository';

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
    private readonly verdicts: BuildVerdictsRepository,
    private readonly contents: BuildContentsRepository,
  ) {}

  /** Status-history entries after `afterId` (uploads and changes), oldest first: their ids and builds. */
  changesAfter(afterId: number, limit: number): Promise<{ id: number; buildId: number }[]> {
    return this.verdicts.changesAfter(afterId, limit);
  }

  /** The newest history entry's id (0 when none). */
  lastChangeId(): Promise<number> {
    return this.verdicts.lastChangeId();
  }

  provenanceOf(buildId: number): Promise<BuildProvenanceEntity | null> {
    return this.verdicts.provenanceOf(buildId);
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
  async uploaderOf(buildId: number): Promise<ChangeAuthor | null> {
    const [first] = await this.verdicts.authors(buildId, 1, false);
    return first ?? null;
  }

  /**
   * "What changed" (docs/integrations.md): the build's provenance, and the newest Done build of the
   * same app and platform uploaded before it from the same repository with a commit (its base). Null
   * when there is no such build.
   */
  async baseOf(buildId: number): Promise<{ provenance: BuildProvenanceEntity | null; base: { buildId: number; commit: string } | null } | null> {
    const place = await this.verdicts.placeOf(buildId);
    if (!place) return null;
    const provenance = await this.verdicts.provenanceOf(buildId);
    if (!provenance?.repository || !provenance.commit) return { provenance, base: null };
    return { provenance, base: await this.verdicts.baseBefore(buildId, place, provenance.repository, 'Done') };
  }

  private async buildsWhere(where: { repository: string; commit?: string; pullRequest?: number }): Promise<CommitBuild[]> {
    const rows = await this.verdicts.provenanceWhere(where);
    if (!rows.length) return [];
    const builds = await this.verdicts.builds(rows.map((r) => r.buildId));
    const byId = new Map(builds.map((b) => [b.id, b]));
    const flags = await this.contents.flagsOf(builds.map((b) => b.id));
    const result: CommitBuild[] = [];
    for (const row of rows) {
      const build = byId.get(row.buildId);
      if (!build) continue;
      // The newest entry names who decided, unless it is the upload's own (the only entry).
      const [last, earlier] = await this.verdicts.authors(build.id, 2, true);
      const who = earlier ? last : null;
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

import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, MoreThan, Repository } from 'typeorm';
import { BuildEntity } from '../build.entity';
import type { Platform } from '../../app-catalogue/platform';
import type { BuildStatus } from '../build-status';
import { BuildStatusChangeEntity } from '../build-status-change.entity';
import { BuildContentsRepository } from '../contents/build-contents.repository';
import { BuildProvenanceEntity } from './build-provenance.entity';

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
    @InjectRepository(BuildStatusChangeEntity) private readonly changes: Repository<BuildStatusChangeEntity>,
    @InjectRepository(BuildProvenanceEntity) private readonly provenance: Repository<BuildProvenanceEntity>,
    @InjectRepository(BuildEntity) private readonly builds: Repository<BuildEntity>,
    private readonly contents: BuildContentsRepository,
  ) {}

  /** Status-history entries after `afterId` (uploads and changes), oldest first: their ids and builds. */
  async changesAfter(afterId: number, limit: number): Promise<{ id: number; buildId: number }[]> {
    const rows = await this.changes.find({ where: { id: MoreThan(afterId) }, select: { id: true, buildId: true }, order: { id: 'ASC' }, take: limit });
    return rows.map((row) => ({ id: row.id, buildId: row.buildId }));
  }

  /** The newest history entry's id (0 when none). */
  async lastChangeId(): Promise<number> {
    const [row] = await this.changes.find({ select: { id: true }, order: { id: 'DESC' }, take: 1 });
    return row?.id ?? 0;
  }

  provenanceOf(buildId: number): Promise<BuildProvenanceEntity | null> {
    return this.provenance.findOneBy({ buildId });
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
    const [first] = await this.changes.find({ where: { buildId }, relations: { changedBy: true }, order: { id: 'ASC' }, take: 1 });
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
    const build = await this.builds.findOneBy({ id: buildId });
    if (!build) return null;
    const provenance = await this.provenance.findOneBy({ buildId });
    if (!provenance?.repository || !provenance.commit) return { build, provenance, base: null };
    const row = await this.builds
      .createQueryBuilder('b')
      .innerJoin(BuildProvenanceEntity, 'p', 'p.build_id = b.id')
      .select('b.id', 'id')
      .addSelect('p.commit_sha', 'commit')
      .where('b.app_id = :appId AND b.platform = :platform AND b.id < :id', { appId: build.appId, platform: build.platform, id: build.id })
      .andWhere("b.status_label = 'Done' AND p.repository = :repository AND p.commit_sha IS NOT NULL", { repository: provenance.repository })
      .orderBy('b.id', 'DESC')
      .limit(1)
      .getRawOne<{ id: number | string; commit: string }>();
    return { build, provenance, base: row ? { buildId: Number(row.id), commit: row.commit } : null };
  }

  private async buildsWhere(where: { repository: string; commit?: string; pullRequest?: number }): Promise<CommitBuild[]> {
    const rows = await this.provenance.find({ where, order: { buildId: 'ASC' } });
    if (!rows.length) return [];
    const builds = await this.builds.find({ where: { id: In(rows.map((r) => r.buildId)) } });
    const byId = new Map(builds.map((b) => [b.id, b]));
    const flags = await this.contents.flagsOf(builds.map((b) => b.id));
    const result: CommitBuild[] = [];
    for (const row of rows) {
      const build = byId.get(row.buildId);
      if (!build) continue;
      // The newest entry names who decided, unless it is the upload's own (the only entry).
      const [last, earlier] = await this.changes.find({ where: { buildId: build.id }, relations: { changedBy: true }, order: { id: 'DESC' }, take: 2 });
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

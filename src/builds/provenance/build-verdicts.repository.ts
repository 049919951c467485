import { Injectable } from '@nestjs/common';
import type { Platform } from '../../app-catalogue/platform';
import { inLists } from '../../database/in-lists';
import { QueryBuilder } from '../../database/query-builder/query-builder';
import type { BuildStatus } from '../build-status';
import { BuildProvenanceEntity } from './build-provenance.entity';
import { SqlExecutor } from '../../database/sql-executor';

/** A build as a verdict names it. */
export interface VerdictBuild {
  id: number;
  appId: number;
  name: string;
  platform: Platform;
  versionName: string | null;
  buildNumber: string | null;
  statusLabel: BuildStatus | null;
}

/** Who made a status-history entry: the live account while it exists, else the name and e-mail kept with the entry. */
export interface ChangeAuthor {
  userId: number | null;
  email: string;
  displayName: string | null;
}

interface ProvenanceRow {
  build_id: number | string;
  commit_sha: string | null;
  branch: string | null;
  repository: string | null;
  pull_request: number | string | null;
  ci_url: string | null;
  changelog: string | null;
}

interface AuthorRow {
  changed_by_email: string;
  changed_by_display_name: string | null;
  user_id: number | string | null;
  user_email: string | null;
  user_display_name: string | null;
}

const PROVENANCE_COLUMNS = ['build_id', 'commit_sha', 'branch', 'repository', 'pull_request', 'ci_url', 'changelog'] as const;

/** The reads of builds, build_provenance and build_status_changes behind BuildVerdictsService (the forges' view of builds). */
@Injectable()
export class BuildVerdictsRepository {
  private readonly sql: QueryBuilder;

  constructor(private readonly db: SqlExecutor) {
    this.sql = QueryBuilder.for(db.dialect);
  }

  /** Status-history entries after `afterId`, oldest first. */
  async changesAfter(afterId: number, limit: number): Promise<{ id: number; buildId: number }[]> {
    const statement = this.sql.prepare('verdicts.changesAfter', (v: { afterId: number; limit: number }) =>
      this.sql.db.selectFrom('build_status_changes').select(['id', 'build_id']).where('id', '>', v.afterId).orderBy('id').limit(v.limit),
    );
    const rows = await statement.run<{ id: number | string; build_id: number | string }>(this.db, { afterId, limit });
    return rows.map((row) => ({ id: Number(row.id), buildId: Number(row.build_id) }));
  }

  async lastChangeId(): Promise<number> {
    const statement = this.sql.prepare('verdicts.lastChangeId', (v: { limit: number }) =>
      this.sql.db.selectFrom('build_status_changes').select('id').orderBy('id', 'desc').limit(v.limit),
    );
    const [row] = await statement.run<{ id: number | string }>(this.db, { limit: 1 });
    return row ? Number(row.id) : 0;
  }

  async provenanceOf(buildId: number): Promise<BuildProvenanceEntity | null> {
    const statement = this.sql.prepare('verdicts.provenance', (v: { buildId: number }) =>
      this.sql.db.selectFrom('build_provenance').select(PROVENANCE_COLUMNS).where('build_id', '=', v.buildId),
    );
    const [row] = await statement.run<ProvenanceRow>(this.db, { buildId });
    return row ? toProvenance(row) : null;
  }

  /** The provenance of every build uploaded with this repository and commit (or pull request), by build id. */
  async provenanceWhere(where: { repository: string; commit?: string; pullRequest?: number }): Promise<BuildProvenanceEntity[]> {
    const byCommit = where.commit !== undefined;
    const statement = this.sql.prepare(`verdicts.provenanceBy ${byCommit ? 'commit' : 'pullRequest'}`, (v: { repository: string; commit: string; pullRequest: number }) =>
      this.sql.db
        .selectFrom('build_provenance')
        .select(PROVENANCE_COLUMNS)
        .where('repository', '=', v.repository)
        .where(byCommit ? 'commit_sha' : 'pull_request', '=', byCommit ? v.commit : v.pullRequest)
        .orderBy('build_id'),
    );
    const rows = await statement.run<ProvenanceRow>(this.db, { repository: where.repository, commit: where.commit ?? '', pullRequest: where.pullRequest ?? 0 });
    return rows.map(toProvenance);
  }

  /** These builds (those that still exist), in no particular order. */
  async builds(ids: number[]): Promise<VerdictBuild[]> {
    const found: VerdictBuild[] = [];
    for (const list of inLists(ids)) {
      const statement = this.sql.prepare(`verdicts.builds ${list.length}`, (v: number[]) =>
        this.sql.db
          .selectFrom('builds')
          .select(['id', 'app_id', 'name', 'platform', 'version_name', 'build_number', 'status_label'])
          .where(
            'id',
            'in',
            list.map((_, i) => v[i]),
          ),
      );
      const rows = await statement.run<{
        id: number | string;
        app_id: number | string;
        name: string;
        platform: Platform;
        version_name: string | null;
        build_number: string | null;
        status_label: BuildStatus | null;
      }>(this.db, list);
      for (const row of rows) {
        found.push({
          id: Number(row.id),
          appId: Number(row.app_id),
          name: row.name,
          platform: row.platform,
          versionName: row.version_name,
          buildNumber: row.build_number,
          statusLabel: row.status_label,
        });
      }
    }
    return found;
  }

  /** The authors of a build's first `limit` history entries, oldest first (`newest`: newest first). */
  async authors(buildId: number, limit: number, newest: boolean): Promise<ChangeAuthor[]> {
    const statement = this.sql.prepare(`verdicts.authors ${newest ? 'newest' : 'oldest'}`, (v: { buildId: number; limit: number }) =>
      this.sql.db
        .selectFrom('build_status_changes as c')
        .leftJoin('users as u', 'u.id', 'c.changed_by_id')
        .select(['c.changed_by_email', 'c.changed_by_display_name', 'u.id as user_id', 'u.email as user_email', 'u.display_name as user_display_name'])
        .where('c.build_id', '=', v.buildId)
        .orderBy('c.id', newest ? 'desc' : 'asc')
        .limit(v.limit),
    );
    const rows = await statement.run<AuthorRow>(this.db, { buildId, limit });
    return rows.map((row) =>
      row.user_id !== null && row.user_email !== null
        ? { userId: Number(row.user_id), email: row.user_email, displayName: row.user_display_name }
        : { userId: null, email: row.changed_by_email, displayName: row.changed_by_display_name },
    );
  }

  /** The app and platform of a build, or null when there is no such build. */
  async placeOf(buildId: number): Promise<{ appId: number; platform: Platform } | null> {
    const statement = this.sql.prepare('verdicts.placeOf', (v: { id: number }) => this.sql.db.selectFrom('builds').select(['app_id', 'platform']).where('id', '=', v.id));
    const [row] = await statement.run<{ app_id: number | string; platform: Platform }>(this.db, { id: buildId });
    return row ? { appId: Number(row.app_id), platform: row.platform } : null;
  }

  /** The newest build of this app and platform before `buildId` with `status` and a commit of this repository: its id and commit. */
  async baseBefore(buildId: number, place: { appId: number; platform: Platform }, repository: string, status: BuildStatus): Promise<{ buildId: number; commit: string } | null> {
    const statement = this.sql.prepare('verdicts.baseBefore', (v: { appId: number; platform: Platform; id: number; status: BuildStatus; repository: string; limit: number }) =>
      this.sql.db
        .selectFrom('builds as b')
        .innerJoin('build_provenance as p', 'p.build_id', 'b.id')
        .select(['b.id', 'p.commit_sha'])
        .where('b.app_id', '=', v.appId)
        .where('b.platform', '=', v.platform)
        .where('b.id', '<', v.id)
        .where('b.status_label', '=', v.status)
        .where('p.repository', '=', v.repository)
        .where('p.commit_sha', 'is not', null)
        .orderBy('b.id', 'desc')
        .limit(v.limit),
    );
    const [row] = await statement.run<{ id: number | string; commit_sha: string }>(this.db, { ...place, id: buildId, status, repository, limit: 1 });
    return row ? { buildId: Number(row.id), commit: row.commit_sha } : null;
  }
}

function toProvenance(row: ProvenanceRow): BuildProvenanceEntity {
  return Object.assign(new BuildProvenanceEntity(), {
    buildId: Number(row.build_id),
    commit: row.commit_sha,
    branch: row.branch,
    repository: row.repository,
    pullRequest: row.pull_request === null ? null : Number(row.pull_request),
    ciUrl: row.ci_url,
    changelog: row.changelog,
  });
}

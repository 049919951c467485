import { Injectable } from '@nestjs/common';
import { QueryBuilder } from '../../database/query-builder/query-builder';
import type { BuildProvenanceTable } from '../../database/query-builder/tables';
import { insertRow } from '../builds.repository';
import type { UploadBuildFields } from '../dto/upload-build.dto';
import { BuildProvenanceEntity } from './build-provenance.entity';
import { SqlExecutor } from '../../database/sql-executor';
import type { Sql } from '../../database/sql';

/** The build_provenance rows (builds owns the table). */
@Injectable()
export class BuildProvenanceRepository {
  private readonly sql: QueryBuilder;

  constructor(private readonly db: SqlExecutor) {
    this.sql = QueryBuilder.for(db.dialect);
  }

  /** The upload's provenance fields as a row, or null when it gave none. */
  static fromFields(buildId: number, fields: UploadBuildFields): BuildProvenanceEntity | null {
    const row: BuildProvenanceEntity = {
      buildId,
      commit: fields.commit?.toLowerCase() ?? null,
      branch: fields.branch ?? null,
      repository: fields.repository ?? null,
      pullRequest: fields.pull_request ?? null,
      ciUrl: fields.ci_url ?? null,
      changelog: fields.changelog ?? null,
    };
    const { buildId: _, ...given } = row;
    return Object.values(given).some((value) => value !== null) ? row : null;
  }

  /** Inside the upload's transaction. */
  async insert(row: BuildProvenanceEntity, tx: Sql): Promise<void> {
    await insertRow(tx, 'build_provenance', {
      build_id: row.buildId,
      commit_sha: row.commit,
      branch: row.branch,
      repository: row.repository,
      pull_request: row.pullRequest,
      ci_url: row.ciUrl,
      changelog: row.changelog,
    });
  }

  async of(buildId: number): Promise<BuildProvenanceEntity | null> {
    const statement = this.sql.prepare('provenance.of', (v: { buildId: number }) => this.sql.db.selectFrom('build_provenance').selectAll().where('build_id', '=', v.buildId));
    const [row] = await statement.run<{ [K in keyof BuildProvenanceTable]: unknown }>(this.db, { buildId });
    if (!row) return null;
    return {
      buildId: Number(row.build_id),
      commit: (row.commit_sha as string | null) ?? null,
      branch: (row.branch as string | null) ?? null,
      repository: (row.repository as string | null) ?? null,
      pullRequest: row.pull_request === null || row.pull_request === undefined ? null : Number(row.pull_request),
      ciUrl: (row.ci_url as string | null) ?? null,
      changelog: (row.changelog as string | null) ?? null,
    };
  }

  /** Builds uploaded with this commit, oldest first (several platforms may share one commit). */
  async buildsOfCommit(repository: string, commit: string): Promise<number[]> {
    const statement = this.sql.prepare('provenance.buildsOfCommit', (v: { repository: string; commit: string }) =>
      this.sql.db.selectFrom('build_provenance').select('build_id').where('repository', '=', v.repository).where('commit_sha', '=', v.commit).orderBy('build_id', 'asc'),
    );
    return (await statement.run<{ build_id: number | string }>(this.db, { repository, commit })).map((row) => Number(row.build_id));
  }
}

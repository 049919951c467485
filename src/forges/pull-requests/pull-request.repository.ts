import { Injectable } from '@nestjs/common';
import { sql } from 'kysely';
import { QueryBuilder } from '../../database/query-builder/query-builder';
import { fieldsAsColumns } from '../../database/query-builder/rows';
import type { ForgePullRequestsTable } from '../../database/query-builder/tables';
import { isUniqueViolation } from '../../database/unique-violation';
import type { ForgePullRequestEntity } from './pull-request.entity';
import { SqlExecutor } from '../../database/sql-executor';

type Row = { [K in keyof ForgePullRequestsTable]: unknown };
type Change = Partial<Pick<ForgePullRequestEntity, 'status' | 'attempts' | 'nextAttemptAt' | 'lastError' | 'commentId' | 'installLinks'>>;

/** Entity field → column, of the fields a change sets. */
const COLUMNS: Record<keyof Change, keyof ForgePullRequestsTable> = {
  status: 'status',
  attempts: 'attempts',
  nextAttemptAt: 'next_attempt_at',
  lastError: 'last_error',
  commentId: 'comment_id',
  installLinks: 'install_links',
};

/** forge_pull_requests (the forges module owns it). */
@Injectable()
export class ForgePullRequestRepository {
  private readonly sql: QueryBuilder;

  constructor(private readonly db: SqlExecutor) {
    this.sql = QueryBuilder.for(db.dialect);
  }

  /** Asks for the comment to be written again (created on first use). */
  async touch(repository: string, number: number, now: Date): Promise<void> {
    const existing = await this.find(repository, number);
    if (existing) {
      const again = this.sql.prepare('pullRequests.touch', (v: { id: number; now: number }) =>
        this.sql.db
          .updateTable('forge_pull_requests')
          .set((eb) => ({
            version: eb('version', '+', sql.lit(1)),
            status: sql.lit('queued') as never,
            next_attempt_at: v.now,
            attempts: sql.lit(0),
            last_error: sql.lit(null) as never,
          }))
          .where('id', '=', v.id),
      );
      await again.run(this.db, { id: existing.id, now: now.getTime() });
      return;
    }
    const insert = this.sql.prepare('pullRequests.insert', (v: { repository: string; number: number; now: number }) =>
      this.sql.db.insertInto('forge_pull_requests').values({
        repository: v.repository,
        number: v.number,
        comment_id: sql.lit(null) as never,
        install_links: sql.lit('{}') as never,
        status: sql.lit('queued') as never,
        version: sql.lit(1),
        attempts: sql.lit(0),
        next_attempt_at: v.now,
        last_error: sql.lit(null) as never,
      }),
    );
    try {
      await insert.run(this.db, { repository, number, now: now.getTime() });
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      await this.touch(repository, number, now);
    }
  }

  async due(now: Date, limit: number): Promise<ForgePullRequestEntity[]> {
    const statement = this.sql.prepare('pullRequests.due', (v: { now: number; limit: number }) =>
      this.sql.db
        .selectFrom('forge_pull_requests')
        .selectAll()
        .where('status', '=', sql.lit('queued') as never)
        .where('next_attempt_at', '<=', v.now)
        .orderBy('id', 'asc')
        .limit(v.limit),
    );
    return (await statement.run<Row>(this.db, { now: now.getTime(), limit })).map(fromRow);
  }

  async find(repository: string, number: number): Promise<ForgePullRequestEntity | null> {
    const statement = this.sql.prepare('pullRequests.find', (v: { repository: string; number: number }) =>
      this.sql.db.selectFrom('forge_pull_requests').selectAll().where('repository', '=', v.repository).where('number', '=', v.number),
    );
    const [row] = await statement.run<Row>(this.db, { repository, number });
    return row ? fromRow(row) : null;
  }

  /** Keeps what the forge now holds (comment id, links); settles the queue state only if nobody asked again meanwhile. */
  async written(row: ForgePullRequestEntity, commentId: string, installLinks: string): Promise<void> {
    await this.change(row.id, null, { commentId, installLinks });
    await this.change(row.id, row.version, { status: 'delivered', attempts: row.attempts + 1, lastError: null });
  }

  async keepLinks(id: number, installLinks: string): Promise<void> {
    await this.change(id, null, { installLinks });
  }

  async failed(row: ForgePullRequestEntity, error: string, retryAt: Date | null): Promise<void> {
    await this.change(
      row.id,
      row.version,
      retryAt ? { attempts: row.attempts + 1, lastError: error, nextAttemptAt: retryAt } : { status: 'failed', attempts: row.attempts + 1, lastError: error },
    );
  }

  /** Sets `change` on the row; with a version, only if the row is still at it. */
  private async change(id: number, version: number | null, change: Change): Promise<void> {
    const set = fieldsAsColumns(change, COLUMNS);
    const columns = Object.keys(set);
    const statement = this.sql.prepare(`pullRequests.change ${columns.join(',')}${version === null ? '' : ' at version'}`, (v: Record<string, unknown>) => {
      const update = this.sql.db
        .updateTable('forge_pull_requests')
        .set(Object.fromEntries(columns.map((c) => [c, v[c]])) as never)
        .where('id', '=', v.id as number);
      return version === null ? update : update.where('version', '=', v.version as number);
    });
    await statement.run(this.db, { ...set, id, version });
  }
}

/** PostgreSQL gives bigint columns as strings, SQLite as numbers. */
function fromRow(r: Row): ForgePullRequestEntity {
  return {
    id: Number(r.id),
    repository: r.repository as string,
    number: Number(r.number),
    commentId: (r.comment_id as string | null) ?? null,
    installLinks: r.install_links as string,
    status: r.status as ForgePullRequestEntity['status'],
    version: Number(r.version),
    attempts: Number(r.attempts),
    nextAttemptAt: new Date(Number(r.next_attempt_at)),
    lastError: (r.last_error as string | null) ?? null,
  };
}

import { Injectable } from '@nestjs/common';
import { sql } from 'kysely';
import { QueryBuilder } from '../database/query-builder/query-builder';
import { SqlExecutor } from '../database/sql-executor';
import type { TrackerIssuesTable } from '../database/query-builder/tables';
import type { TrackerIssueEntity, TrackerIssueStatus } from './tracker-issue.entity';

type Row = { [K in keyof TrackerIssuesTable]: unknown };
export type NewTrackerIssue = Omit<TrackerIssueEntity, 'id'>;
/** What delivery and the webhook change on a row. */
export type TrackerIssueChange = Partial<
  Pick<TrackerIssueEntity, 'status' | 'lastError' | 'externalId' | 'externalUrl' | 'externalStatus' | 'closedAt' | 'buildStatusAtClose' | 'updatedAt'>
>;

const COLUMNS: Record<keyof TrackerIssueChange, keyof TrackerIssuesTable> = {
  status: 'status',
  lastError: 'last_error',
  externalId: 'external_id',
  externalUrl: 'external_url',
  externalStatus: 'external_status',
  closedAt: 'closed_at',
  buildStatusAtClose: 'build_status_at_close',
  updatedAt: 'updated_at',
};

/** The trackers module's one table, `tracker_issues`. */
@Injectable()
export class TrackerIssuesRepository {
  private readonly sql: QueryBuilder;

  constructor(private readonly db: SqlExecutor) {
    this.sql = QueryBuilder.for(db.dialect);
  }

  /** In the caller's transaction when there is one (the report commits with its outbox message). */
  async insert(issue: NewTrackerIssue): Promise<number> {
    const values = toRow(issue);
    const columns = Object.keys(values) as (keyof TrackerIssuesTable)[];
    const statement = this.sql.prepare(`trackers.insert ${columns.join(',')}`, (v: Record<string, unknown>) =>
      this.sql.db
        .insertInto('tracker_issues')
        .values(Object.fromEntries(columns.map((c) => [c, v[c]])) as never)
        .returning('id'),
    );
    const [row] = await statement.run<{ id: number | string }>(this.db, values);
    return Number(row.id);
  }

  async byBuild(buildId: number): Promise<TrackerIssueEntity[]> {
    const statement = this.sql.prepare('trackers.byBuild', (v: { buildId: number }) =>
      this.sql.db.selectFrom('tracker_issues').selectAll().where('build_id', '=', v.buildId).orderBy('id', 'desc'),
    );
    return (await statement.run<Row>(this.db, { buildId })).map(fromRow);
  }

  async byId(id: number): Promise<TrackerIssueEntity | null> {
    const statement = this.sql.prepare('trackers.byId', (v: { id: number }) => this.sql.db.selectFrom('tracker_issues').selectAll().where('id', '=', v.id));
    const [row] = await statement.run<Row>(this.db, { id });
    return row ? fromRow(row) : null;
  }

  /** The issue a tracker's webhook names (its Jira key, Linear id or GitHub number) on that tracker. */
  async byExternal(tracker: string, externalId: string): Promise<TrackerIssueEntity[]> {
    const statement = this.sql.prepare('trackers.byExternal', (v: { tracker: string; externalId: string }) =>
      this.sql.db.selectFrom('tracker_issues').selectAll().where('tracker', '=', v.tracker).where('external_id', '=', v.externalId),
    );
    return (await statement.run<Row>(this.db, { tracker, externalId })).map(fromRow);
  }

  /** Changes a row still in `from` (a row another instance moved on meanwhile is left alone), in the caller's transaction when there is one. */
  async settle(id: number, from: TrackerIssueStatus[], change: TrackerIssueChange): Promise<void> {
    const set = Object.fromEntries(
      Object.entries(change).map(([key, value]) => [COLUMNS[key as keyof TrackerIssueChange], value instanceof Date ? value.getTime() : value]),
    );
    const columns = Object.keys(set);
    const statement = this.sql.prepare(`trackers.settle ${columns.join(',')} from ${from.join(',')}`, (v: Record<string, unknown>) =>
      this.sql.db
        .updateTable('tracker_issues')
        .set(Object.fromEntries(columns.map((c) => [c, v[c]])) as never)
        .where('id', '=', v.id as number)
        .where('status', 'in', from.map((s) => sql.lit(s)) as never),
    );
    await statement.run(this.db, { ...set, id });
  }
}

function toRow(issue: NewTrackerIssue): Record<keyof Omit<TrackerIssuesTable, 'id'>, unknown> {
  return {
    build_id: issue.buildId,
    tracker: issue.tracker,
    project: issue.project,
    title: issue.title,
    description: issue.description,
    recording_id: issue.recordingId,
    session_id: issue.sessionId,
    from_ms: issue.fromMs,
    to_ms: issue.toMs,
    reported_by: issue.reportedBy,
    status: issue.status,
    last_error: issue.lastError,
    external_id: issue.externalId,
    external_url: issue.externalUrl,
    external_status: issue.externalStatus,
    closed_at: issue.closedAt?.getTime() ?? null,
    build_status_at_close: issue.buildStatusAtClose,
    created_at: issue.createdAt.getTime(),
    updated_at: issue.updatedAt.getTime(),
  };
}

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const date = (v: unknown): Date | null => (v === null || v === undefined ? null : new Date(Number(v)));

/** PostgreSQL gives bigint columns as strings, SQLite as numbers. */
function fromRow(r: Row): TrackerIssueEntity {
  return {
    id: Number(r.id),
    buildId: Number(r.build_id),
    tracker: r.tracker as string,
    project: r.project as string,
    title: r.title as string,
    description: r.description as string,
    recordingId: num(r.recording_id),
    sessionId: (r.session_id as string | null) ?? null,
    fromMs: num(r.from_ms),
    toMs: num(r.to_ms),
    reportedBy: num(r.reported_by),
    status: r.status as TrackerIssueStatus,
    lastError: (r.last_error as string | null) ?? null,
    externalId: (r.external_id as string | null) ?? null,
    externalUrl: (r.external_url as string | null) ?? null,
    externalStatus: (r.external_status as string | null) ?? null,
    closedAt: date(r.closed_at),
    buildStatusAtClose: (r.build_status_at_close as string | null) ?? null,
    createdAt: date(r.created_at)!,
    updatedAt: date(r.updated_at)!,
  };
}

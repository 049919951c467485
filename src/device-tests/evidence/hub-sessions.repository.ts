import { Injectable } from '@nestjs/common';
import { QueryBuilder } from '../../database/query-builder/query-builder';
import { insertReturningId } from '../../database/query-builder/rows';
import { HubSessionRecordEntity } from './hub-session-record.entity';
import { SqlExecutor } from '../../database/sql-executor';

interface HubSessionRow {
  id: number | string;
  session_id: string;
  device_session_id: string;
  build_id: number | string | null;
  run_name: string | null;
  user_id: number | string | null;
  member: string;
  started_at: number | string;
  ended_at: number | string;
  end_reason: string;
  verdict: string | null;
  verdict_reason: string | null;
  recording: string | null;
  screenshot: string | null;
  device_log: string | null;
  log_type: string | null;
  timeline: string;
  expires_at: number | string;
}

const COLUMNS = [
  'id', 'session_id', 'device_session_id', 'build_id', 'run_name', 'user_id', 'member', 'started_at', 'ended_at', 'end_reason',
  'verdict', 'verdict_reason', 'recording', 'screenshot', 'device_log', 'log_type', 'timeline', 'expires_at',
] as const;

/** The hub_sessions table: ended hub sessions and the names of their evidence files. */
@Injectable()
export class HubSessionsRepository {
  private readonly sql: QueryBuilder;

  constructor(private readonly db: SqlExecutor) {
    this.sql = QueryBuilder.for(db.dialect);
  }

  async insert(record: Omit<HubSessionRecordEntity, 'id'>): Promise<number> {
    return insertReturningId(this.db, 'hub_sessions', {
      session_id: record.sessionId,
      device_session_id: record.deviceSessionId,
      build_id: record.buildId,
      run_name: record.runName,
      user_id: record.userId,
      member: record.member,
      started_at: record.startedAt.getTime(),
      ended_at: record.endedAt.getTime(),
      end_reason: record.endReason,
      verdict: record.verdict,
      verdict_reason: record.verdictReason,
      recording: record.recording,
      screenshot: record.screenshot,
      device_log: record.deviceLog,
      log_type: record.logType,
      timeline: record.timeline,
      expires_at: record.expiresAt.getTime(),
    });
  }

  /** The session with this (Appium) id if it expires after `now`. */
  async findLive(sessionId: string, now: Date): Promise<HubSessionRecordEntity | null> {
    const statement = this.sql.prepare('hubSessions.live', (v: { sessionId: string; now: number }) =>
      this.sql.db.selectFrom('hub_sessions').select(COLUMNS).where('session_id', '=', v.sessionId).where('expires_at', '>', v.now),
    );
    const [row] = await statement.run<HubSessionRow>(this.db, { sessionId, now: now.getTime() });
    return row ? toEntity(row) : null;
  }

  /** The sessions of a build that expire after `now`, newest first, at most `limit`. */
  async liveOfBuild(buildId: number, now: Date, limit: number): Promise<HubSessionRecordEntity[]> {
    const statement = this.sql.prepare('hubSessions.liveOfBuild', (v: { buildId: number; now: number; limit: number }) =>
      this.sql.db
        .selectFrom('hub_sessions')
        .select(COLUMNS)
        .where('build_id', '=', v.buildId)
        .where('expires_at', '>', v.now)
        .orderBy('id', 'desc')
        .limit(v.limit),
    );
    return (await statement.run<HubSessionRow>(this.db, { buildId, now: now.getTime(), limit })).map(toEntity);
  }

  /** These sessions' screenshot, recording and timeline, those still kept (at most IN_LIST_MAX ids per call). */
  async evidenceOf(sessionIds: string[], now: Date): Promise<Pick<HubSessionRecordEntity, 'sessionId' | 'screenshot' | 'recording' | 'timeline'>[]> {
    if (!sessionIds.length) return [];
    const statement = this.sql.prepare(`hubSessions.evidenceOf ${sessionIds.length}`, (v: Record<string, unknown>) =>
      this.sql.db
        .selectFrom('hub_sessions')
        .select(['session_id', 'screenshot', 'recording', 'timeline'])
        .where(
          'session_id',
          'in',
          sessionIds.map((_, i) => v[`s${i}`] as string),
        )
        .where('expires_at', '>', v.now as number),
    );
    const values: Record<string, unknown> = { now: now.getTime() };
    sessionIds.forEach((id, i) => (values[`s${i}`] = id));
    const rows = await statement.run<Pick<HubSessionRow, 'session_id' | 'screenshot' | 'recording' | 'timeline'>>(this.db, values);
    return rows.map((row) => ({ sessionId: row.session_id, screenshot: row.screenshot, recording: row.recording, timeline: row.timeline }));
  }

  /** Every screenshot and device log file name (the orphan sweep spares them). */
  async fileNames(): Promise<string[]> {
    const statement = this.sql.prepare('hubSessions.files', () => this.sql.db.selectFrom('hub_sessions').select(['screenshot', 'device_log']));
    const rows = await statement.run<{ screenshot: string | null; device_log: string | null }>(this.db, {});
    return rows.flatMap((row) => [row.screenshot, row.device_log]).filter((name): name is string => name !== null);
  }

  /** Sessions whose evidence expired at or before `now`: ids and file names. */
  async expiredAt(now: Date): Promise<Pick<HubSessionRecordEntity, 'id' | 'screenshot' | 'deviceLog'>[]> {
    const statement = this.sql.prepare('hubSessions.expired', (v: { now: number }) =>
      this.sql.db.selectFrom('hub_sessions').select(['id', 'screenshot', 'device_log']).where('expires_at', '<=', v.now),
    );
    const rows = await statement.run<{ id: number | string; screenshot: string | null; device_log: string | null }>(this.db, { now: now.getTime() });
    return rows.map((row) => ({ id: Number(row.id), screenshot: row.screenshot, deviceLog: row.device_log }));
  }

  /** Deletes these rows (at most IN_LIST_MAX ids per call; one statement per count of ids). */
  async deleteIds(ids: number[]): Promise<void> {
    if (!ids.length) return;
    const statement = this.sql.prepare(`hubSessions.delete ${ids.length}`, (v: number[]) =>
      this.sql.db.deleteFrom('hub_sessions').where(
        'id',
        'in',
        ids.map((_, i) => v[i]),
      ),
    );
    await statement.run(this.db, ids);
  }
}

function toEntity(row: HubSessionRow): HubSessionRecordEntity {
  const id = (value: number | string | null) => (value === null ? null : Number(value));
  return Object.assign(new HubSessionRecordEntity(), {
    id: Number(row.id),
    sessionId: row.session_id,
    deviceSessionId: row.device_session_id,
    buildId: id(row.build_id),
    runName: row.run_name,
    userId: id(row.user_id),
    member: row.member,
    startedAt: new Date(Number(row.started_at)),
    endedAt: new Date(Number(row.ended_at)),
    endReason: row.end_reason,
    verdict: row.verdict,
    verdictReason: row.verdict_reason,
    recording: row.recording,
    screenshot: row.screenshot,
    deviceLog: row.device_log,
    logType: row.log_type,
    timeline: row.timeline,
    expiresAt: new Date(Number(row.expires_at)),
  });
}

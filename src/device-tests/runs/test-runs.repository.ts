import { Injectable } from '@nestjs/common';
import { QueryBuilder } from '../../database/query-builder/query-builder';
import { inLists } from '../../database/in-lists';
import { TransactionRunner } from '../../database/transaction-runner';
import type { ReportedTestCase } from './junit-report';
import type { DeviceTestCaseEntity, DeviceTestRunEntity, DeviceTestSessionEntity, RunSessionStatus, TestCaseStatus } from './test-run.entities';
import { SqlExecutor } from '../../database/sql-executor';
import type { Sql } from '../../database/sql';

/** Rows per INSERT of test cases (9 values each: well under both dialects' bound-parameter limits). */
const CASES_PER_INSERT = 100;

const RUN_COLUMNS = ['id', 'build_id', 'name', 'created_at', 'reported_at', 'reported_by'] as const;
const CASE_COLUMNS = ['id', 'run_id', 'position', 'name', 'class_name', 'status', 'duration_ms', 'message', 'session_id'] as const;
const SESSION_COLUMNS = ['id', 'hub_session_id', 'run_id', 'device_session_id', 'user_id', 'status', 'verdict', 'reason', 'end_reason', 'started_at', 'ended_at', 'instance_id'] as const;

type Num = number | string;
type Nullable<T> = T | null;

/** device_test_runs, device_test_cases and device_test_sessions (the device-tests module owns them). */
@Injectable()
export class TestRunsRepository {
  private readonly sql: QueryBuilder;

  constructor(
    private readonly db: SqlExecutor,
    private readonly transactions: TransactionRunner,
  ) {
    this.sql = QueryBuilder.for(db.dialect);
  }

  /** The run of this build and name, created when there is none (two callers at once find the same row). */
  async runFor(buildId: number, name: string, at: Date, tx: Sql = this.db): Promise<number> {
    const found = await this.findRun(buildId, name, tx);
    if (found !== null) return found;
    // ON CONFLICT rather than catching the violation: it leaves a surrounding PostgreSQL transaction usable.
    const insert = this.sql.prepare('testRuns.insertRun', (v: { buildId: number; name: string; at: number }) =>
      this.sql.db
        .insertInto('device_test_runs')
        .values({ build_id: v.buildId, name: v.name, created_at: v.at })
        .onConflict((oc) => oc.columns(['build_id', 'name']).doNothing()),
    );
    await insert.run(tx, { buildId, name, at: at.getTime() });
    return (await this.findRun(buildId, name, tx))!;
  }

  /** Stores a run's JUnit report in one transaction: the run (created if new), its cases replacing any earlier report's. */
  storeReport(buildId: number, name: string, cases: ReportedTestCase[], by: number, at: Date): Promise<number> {
    return this.transactions.run(async (tx) => {
      const runId = await this.runFor(buildId, name, at, tx);
      const remove = this.sql.prepare('testRuns.removeCases', (v: { runId: number }) => this.sql.db.deleteFrom('device_test_cases').where('run_id', '=', v.runId));
      await remove.run(tx, { runId });
      for (let start = 0; start < cases.length; start += CASES_PER_INSERT) {
        const batch = cases.slice(start, start + CASES_PER_INSERT);
        const insert = this.sql.prepare(`testRuns.insertCases.${batch.length}`, (v: Record<string, unknown>) =>
          this.sql.db.insertInto('device_test_cases').values(
            batch.map((_, i) => ({
              run_id: v.runId as number,
              position: v[`p${i}`] as number,
              name: v[`n${i}`] as string,
              class_name: v[`c${i}`] as string,
              status: v[`s${i}`] as string,
              duration_ms: v[`d${i}`] as number,
              message: v[`m${i}`] as string,
              session_id: v[`x${i}`] as string,
            })),
          ),
        );
        const values: Record<string, unknown> = { runId };
        batch.forEach((c, i) => {
          Object.assign(values, { [`p${i}`]: start + i, [`n${i}`]: c.name, [`c${i}`]: c.className, [`s${i}`]: c.status, [`d${i}`]: c.durationMs, [`m${i}`]: c.message, [`x${i}`]: c.sessionId });
        });
        await insert.run(tx, values);
      }
      const mark = this.sql.prepare('testRuns.markReported', (v: { runId: number; at: number; by: number }) =>
        this.sql.db.updateTable('device_test_runs').set({ reported_at: v.at, reported_by: v.by }).where('id', '=', v.runId),
      );
      await mark.run(tx, { runId, at: at.getTime(), by });
      return runId;
    });
  }

  async insertSession(session: Omit<DeviceTestSessionEntity, 'id' | 'endedAt' | 'endReason' | 'reason' | 'status' | 'verdict'>): Promise<void> {
    const insert = this.sql.prepare('testRuns.insertSession', (v: { id: string; runId: number; device: string; userId: number; status: string; at: number; instance: string }) =>
      this.sql.db
        .insertInto('device_test_sessions')
        .values({ hub_session_id: v.id, run_id: v.runId, device_session_id: v.device, user_id: v.userId, status: v.status, started_at: v.at, instance_id: v.instance })
        .onConflict((oc) => oc.column('hub_session_id').doNothing()),
    );
    await insert.run(this.db, {
      id: session.hubSessionId,
      runId: session.runId,
      device: session.deviceSessionId,
      userId: session.userId!,
      status: 'running',
      at: session.startedAt.getTime(),
      instance: session.instanceId!,
    });
  }

  /** Keeps a running session's svc:status (its client may mark it again: the last mark counts). */
  async markSession(id: string, verdict: 'passed' | 'failed', reason: string | null): Promise<void> {
    const update = this.sql.prepare('testRuns.markSession', (v: { id: string; verdict: string; reason: string }) =>
      this.sql.db.updateTable('device_test_sessions').set({ verdict: v.verdict, reason: v.reason }).where('hub_session_id', '=', v.id),
    );
    await update.run(this.db, { id, verdict, reason: reason! });
  }

  /** Sessions still recorded as running, with the instance running each (null: written before instances were kept). */
  async runningSessions(): Promise<Pick<DeviceTestSessionEntity, 'hubSessionId' | 'runId' | 'instanceId'>[]> {
    const statement = this.sql.prepare('testRuns.runningSessions', (v: { running: string }) =>
      this.sql.db.selectFrom('device_test_sessions').select(['hub_session_id', 'run_id', 'instance_id']).where('status', '=', v.running),
    );
    const rows = await statement.run<{ hub_session_id: string; run_id: Num; instance_id: Nullable<string> }>(this.db, { running: 'running' });
    return rows.map((row) => ({ hubSessionId: row.hub_session_id, runId: Number(row.run_id), instanceId: row.instance_id }));
  }

  /**
   * Ends sessions no instance runs any more (their relay was killed): each takes its client's mark
   * if it gave one, else `ended`. Only rows still running change, so a session that ended meanwhile keeps its end.
   */
  /** Ends those of the sessions still running; the runs of the ones it ended (another instance may have ended some first). */
  async endAbandoned(ids: string[], endReason: string, at: Date): Promise<number[]> {
    const runIds = new Set<number>();
    for (const batch of inLists(ids)) {
      const update = this.sql.prepare(`testRuns.endAbandoned ${batch.length}`, (v: Record<string, unknown>) =>
        this.sql.db
          .updateTable('device_test_sessions')
          .set((eb) => ({ status: eb.fn.coalesce('verdict', eb.val(v.unmarked as string)), end_reason: v.endReason as string, ended_at: v.at as number }))
          .where('status', '=', v.running as string)
          .where(
            'hub_session_id',
            'in',
            batch.map((_, i) => v[`s${i}`] as string),
          )
          .returning('run_id'),
      );
      const values: Record<string, unknown> = { unmarked: 'ended', running: 'running', endReason, at: at.getTime() };
      batch.forEach((id, i) => (values[`s${i}`] = id));
      for (const row of await update.run<{ run_id: number | string }>(this.db, values)) runIds.add(Number(row.run_id));
    }
    return [...runIds];
  }

  /** Ends a session; its run's id, or null when the session is not one of a run (never started here). */
  async endSession(id: string, status: RunSessionStatus, reason: string | null, endReason: string, at: Date): Promise<number | null> {
    const update = this.sql.prepare('testRuns.endSession', (v: { id: string; status: string; reason: string; endReason: string; at: number }) =>
      this.sql.db.updateTable('device_test_sessions').set({ status: v.status, reason: v.reason, end_reason: v.endReason, ended_at: v.at }).where('hub_session_id', '=', v.id).returning('run_id'),
    );
    const [row] = await update.run<{ run_id: Num }>(this.db, { id, status, reason: reason!, endReason, at: at.getTime() });
    return row ? Number(row.run_id) : null;
  }

  async runsOfBuild(buildId: number): Promise<DeviceTestRunEntity[]> {
    const statement = this.sql.prepare('testRuns.ofBuild', (v: { buildId: number }) =>
      this.sql.db.selectFrom('device_test_runs').select(RUN_COLUMNS).where('build_id', '=', v.buildId).orderBy('id'),
    );
    return (await statement.run<RunRow>(this.db, { buildId })).map(toRun);
  }

  async run(runId: number): Promise<DeviceTestRunEntity | null> {
    const statement = this.sql.prepare('testRuns.byId', (v: { runId: number }) => this.sql.db.selectFrom('device_test_runs').select(RUN_COLUMNS).where('id', '=', v.runId));
    const [row] = await statement.run<RunRow>(this.db, { runId });
    return row ? toRun(row) : null;
  }

  /** The cases of a build's runs, each run's in report order. */
  async casesOfBuild(buildId: number): Promise<DeviceTestCaseEntity[]> {
    const statement = this.sql.prepare('testRuns.casesOfBuild', (v: { buildId: number }) =>
      this.sql.db
        .selectFrom('device_test_cases as c')
        .innerJoin('device_test_runs as r', 'r.id', 'c.run_id')
        .select(CASE_COLUMNS.map((column) => `c.${column}` as const))
        .where('r.build_id', '=', v.buildId)
        .orderBy('c.run_id')
        .orderBy('c.position'),
    );
    return (await statement.run<CaseRow>(this.db, { buildId })).map(toCase);
  }

  /** The hub sessions of a build's runs, oldest first. */
  async sessionsOfBuild(buildId: number): Promise<DeviceTestSessionEntity[]> {
    const statement = this.sql.prepare('testRuns.sessionsOfBuild', (v: { buildId: number }) =>
      this.sql.db
        .selectFrom('device_test_sessions as s')
        .innerJoin('device_test_runs as r', 'r.id', 's.run_id')
        .select(SESSION_COLUMNS.map((column) => `s.${column}` as const))
        .where('r.build_id', '=', v.buildId)
        .orderBy('s.started_at')
        .orderBy('s.id'),
    );
    return (await statement.run<SessionRow>(this.db, { buildId })).map(toSession);
  }

  /** How many of a build's test cases and ended sessions passed and failed (the release gate's and the PR status's input). */
  async outcomesOfBuild(buildId: number): Promise<{ passed: number; failed: number }> {
    const cases = this.sql.prepare('testRuns.caseOutcomes', (v: { buildId: number }) =>
      this.sql.db
        .selectFrom('device_test_cases as c')
        .innerJoin('device_test_runs as r', 'r.id', 'c.run_id')
        .select(['c.status', (eb) => eb.fn.countAll().as('n')])
        .where('r.build_id', '=', v.buildId)
        .groupBy('c.status'),
    );
    const sessions = this.sql.prepare('testRuns.sessionOutcomes', (v: { buildId: number }) =>
      this.sql.db
        .selectFrom('device_test_sessions as s')
        .innerJoin('device_test_runs as r', 'r.id', 's.run_id')
        .select(['s.status', (eb) => eb.fn.countAll().as('n')])
        .where('r.build_id', '=', v.buildId)
        .groupBy('s.status'),
    );
    const counts = { passed: 0, failed: 0 };
    for (const row of [...(await cases.run<{ status: string; n: Num }>(this.db, { buildId })), ...(await sessions.run<{ status: string; n: Num }>(this.db, { buildId }))]) {
      if (row.status === 'passed' || row.status === 'failed') counts[row.status] += Number(row.n);
    }
    return counts;
  }

  /** How many of a build's hub sessions their clients marked passed and failed (svc:status, running or ended). */
  async verdictsOfBuild(buildId: number): Promise<{ passed: number; failed: number }> {
    const statement = this.sql.prepare('testRuns.verdictsOfBuild', (v: { buildId: number }) =>
      this.sql.db
        .selectFrom('device_test_sessions as s')
        .innerJoin('device_test_runs as r', 'r.id', 's.run_id')
        .select(['s.verdict', (eb) => eb.fn.countAll().as('n')])
        .where('r.build_id', '=', v.buildId)
        .where('s.verdict', 'is not', null)
        .groupBy('s.verdict'),
    );
    const counts = { passed: 0, failed: 0 };
    for (const row of await statement.run<{ verdict: string; n: Num }>(this.db, { buildId })) {
      if (row.verdict === 'passed' || row.verdict === 'failed') counts[row.verdict] += Number(row.n);
    }
    return counts;
  }

  private async findRun(buildId: number, name: string, tx: Sql): Promise<number | null> {
    const statement = this.sql.prepare('testRuns.find', (v: { buildId: number; name: string }) =>
      this.sql.db.selectFrom('device_test_runs').select('id').where('build_id', '=', v.buildId).where('name', '=', v.name),
    );
    const [row] = await statement.run<{ id: Num }>(tx, { buildId, name });
    return row ? Number(row.id) : null;
  }
}

interface RunRow {
  id: Num;
  build_id: Num;
  name: string;
  created_at: Num;
  reported_at: Nullable<Num>;
  reported_by: Nullable<Num>;
}

interface CaseRow {
  id: Num;
  run_id: Num;
  position: Num;
  name: string;
  class_name: Nullable<string>;
  status: TestCaseStatus;
  duration_ms: Nullable<Num>;
  message: Nullable<string>;
  session_id: Nullable<string>;
}

interface SessionRow {
  id: Num;
  hub_session_id: string;
  run_id: Num;
  device_session_id: string;
  user_id: Nullable<Num>;
  status: RunSessionStatus;
  verdict: Nullable<'passed' | 'failed'>;
  reason: Nullable<string>;
  end_reason: Nullable<string>;
  started_at: Num;
  ended_at: Nullable<Num>;
  instance_id: Nullable<string>;
}

const numberOrNull = (value: Nullable<Num>) => (value === null ? null : Number(value));
const dateOrNull = (value: Nullable<Num>) => (value === null ? null : new Date(Number(value)));

function toRun(row: RunRow): DeviceTestRunEntity {
  return { id: Number(row.id), buildId: Number(row.build_id), name: row.name, createdAt: new Date(Number(row.created_at)), reportedAt: dateOrNull(row.reported_at), reportedBy: numberOrNull(row.reported_by) };
}

function toCase(row: CaseRow): DeviceTestCaseEntity {
  return {
    id: Number(row.id),
    runId: Number(row.run_id),
    position: Number(row.position),
    name: row.name,
    className: row.class_name,
    status: row.status,
    durationMs: numberOrNull(row.duration_ms),
    message: row.message,
    sessionId: row.session_id,
  };
}

function toSession(row: SessionRow): DeviceTestSessionEntity {
  return {
    id: Number(row.id),
    hubSessionId: row.hub_session_id,
    runId: Number(row.run_id),
    deviceSessionId: row.device_session_id,
    userId: numberOrNull(row.user_id),
    status: row.status,
    verdict: row.verdict,
    reason: row.reason,
    endReason: row.end_reason,
    startedAt: new Date(Number(row.started_at)),
    endedAt: dateOrNull(row.ended_at),
    instanceId: row.instance_id,
  };
}

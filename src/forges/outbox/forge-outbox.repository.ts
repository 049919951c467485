import { Injectable } from '@nestjs/common';
import { sql } from 'kysely';
import { lockForTransaction } from '../../database/database-lock';
import { inLists } from '../../database/in-lists';
import { QueryBuilder } from '../../database/query-builder/query-builder';
import { fieldsAsColumns, insertReturningId } from '../../database/query-builder/rows';
import type { ForgeDeliveriesTable, ForgeStatusOutboxTable } from '../../database/query-builder/tables';
import { TransactionRunner } from '../../database/transaction-runner';
import type { DesiredStatus } from '../status/commit-status';
import type { ForgeDeliveryEntity, ForgeStatusEntity, OutboxStatus, StatusState } from './forge-status.entity';
import { SqlExecutor } from '../../database/sql-executor';
import type { Sql } from '../../database/sql';

/** The feed's one row: how far the builds' status history has been read. */
const FEED = 'status_changes';

type StatusRow = { [K in keyof ForgeStatusOutboxTable]: unknown };
type DeliveryRow = { [K in keyof ForgeDeliveriesTable]: unknown };
type StatusChange = Partial<Pick<ForgeStatusEntity, 'status' | 'attempts' | 'nextAttemptAt' | 'lastError' | 'deliveredAt'>>;

/** Entity field → column of forge_status_outbox. */
const STATUS_COLUMNS: Record<keyof Omit<ForgeStatusEntity, 'id'>, Exclude<keyof ForgeStatusOutboxTable, 'id'>> = {
  repository: 'repository',
  commit: 'commit_sha',
  context: 'context',
  buildId: 'build_id',
  state: 'state',
  description: 'description',
  targetUrl: 'target_url',
  summary: 'summary',
  status: 'status',
  attempts: 'attempts',
  nextAttemptAt: 'next_attempt_at',
  lastError: 'last_error',
  createdAt: 'created_at',
  deliveredAt: 'delivered_at',
  gateVersions: 'gate_versions',
};

/** Entity field → column of forge_deliveries. */
const DELIVERY_COLUMNS: Record<keyof Omit<ForgeDeliveryEntity, 'id'>, Exclude<keyof ForgeDeliveriesTable, 'id'>> = {
  outboxId: 'outbox_id',
  forge: 'forge',
  forgeKey: 'forge_key',
  attemptedAt: 'attempted_at',
  statusCode: 'status_code',
  error: 'error',
  durationMs: 'duration_ms',
};

/** A status of the key that still counts: queued or delivered (not superseded, not failed). */
const LIVE = [sql.lit('queued'), sql.lit('delivered')] as never;

/** The forges module's tables: the outbox, its delivery log and the feed's cursor. */
@Injectable()
export class ForgeOutboxRepository {
  private readonly sql: QueryBuilder;

  constructor(
    private readonly db: SqlExecutor,
    private readonly transactions: TransactionRunner,
  ) {
    this.sql = QueryBuilder.for(db.dialect);
  }

  /** The feed's position, or null before the first start with a forge. */
  async cursor(): Promise<number | null> {
    const statement = this.sql.prepare('forgeOutbox.cursor', (v: { name: string }) => this.sql.db.selectFrom('forge_feed').select('last_id').where('name', '=', v.name));
    const [row] = await statement.run<{ last_id: number | string }>(this.db, { name: FEED });
    return row ? Number(row.last_id) : null;
  }

  async startCursor(at: number): Promise<void> {
    const statement = this.sql.prepare('forgeOutbox.startCursor', (v: { name: string; at: number }) =>
      this.sql.db.insertInto('forge_feed').values({ name: v.name, last_id: v.at }),
    );
    await statement.run(this.db, { name: FEED, at });
  }

  /**
   * In one transaction: each status whose key's newest row says something else, and (with
   * `gateVersions`) was not made from an older gate than that row, is queued (older
   * queued rows of its key superseded), and the cursor moves from `from` to `to`. The cursor and
   * the statuses commit together, so a crash leaves either both or neither.
   */
  async enqueue(
    statuses: { repository: string; commit: string; status: DesiredStatus }[],
    move: { from: number; to: number } | null,
    now: Date,
  ): Promise<number> {
    type Key = { repository: string; commit: string; context: string };
    const newestOfKey = this.sql.prepare('forgeOutbox.newestOfKey', (v: Key) =>
      this.sql.db
        .selectFrom('forge_status_outbox')
        .select(['id', 'state', 'description', 'target_url', 'gate_versions'])
        .where('repository', '=', v.repository)
        .where('commit_sha', '=', v.commit)
        .where('context', '=', v.context)
        .where('status', 'in', LIVE)
        .orderBy('id', 'desc')
        .limit(sql.lit(1)),
    );
    const supersede = this.sql.prepare('forgeOutbox.supersede', (v: Key) =>
      this.sql.db
        .updateTable('forge_status_outbox')
        .set({ status: sql.lit('superseded') as never })
        .where('repository', '=', v.repository)
        .where('commit_sha', '=', v.commit)
        .where('context', '=', v.context)
        .where('status', '=', sql.lit('queued') as never),
    );
    const keepVersions = this.sql.prepare('forgeOutbox.keepVersions', (v: { id: number; versions: string }) =>
      this.sql.db.updateTable('forge_status_outbox').set({ gate_versions: v.versions }).where('id', '=', v.id),
    );
    const moveCursor = this.sql.prepare('forgeOutbox.moveCursor', (v: { name: string; from: number; to: number }) =>
      this.sql.db.updateTable('forge_feed').set({ last_id: v.to }).where('name', '=', v.name).where('last_id', '=', v.from).returning('name'),
    );
    return this.transactions.run(async (tx) => {
      let queued = 0;
      for (const { repository, commit, status } of statuses) {
        const key = { repository, commit, context: status.context };
        // Versioned statuses: instances queue the key one at a time (until the commit), so the check below holds.
        if (status.gateVersions) await lockForTransaction(tx, `svc.forge_status.${repository}.${commit}.${status.context}`);
        type Newest = { id: number | string; state: string; description: string; target_url: string | null; gate_versions: string | null };
        const [newest] = await newestOfKey.run<Newest>(tx, key);
        if (newest && status.gateVersions && isOlder(status.gateVersions, newest.gate_versions)) continue;
        if (newest && newest.state === status.state && newest.description === status.description && newest.target_url === status.targetUrl) {
          // Same words from newer gates: the row now stands for them, so a status from the gates between stays refused.
          if (status.gateVersions) await keepVersions.run(tx, { id: Number(newest.id), versions: JSON.stringify(newestOf(status.gateVersions, newest.gate_versions)) });
          continue;
        }
        await supersede.run(tx, key);
        await this.insertStatus(tx, {
          ...key,
          buildId: status.buildId,
          state: status.state,
          description: status.description,
          targetUrl: status.targetUrl,
          summary: status.summary,
          status: 'queued',
          attempts: 0,
          nextAttemptAt: now,
          lastError: null,
          createdAt: now,
          deliveredAt: null,
          gateVersions: status.gateVersions ? JSON.stringify(status.gateVersions) : null,
        });
        queued++;
      }
      if (move) {
        const moved = await moveCursor.run(tx, { name: FEED, ...move });
        if (moved.length !== 1) throw new Error(`forge feed cursor moved under us (expected ${move.from})`);
      }
      return queued;
    });
  }

  /** Queued statuses due by `now`, oldest first. */
  async due(now: Date, limit: number): Promise<ForgeStatusEntity[]> {
    const statement = this.sql.prepare('forgeOutbox.due', (v: { now: number; limit: number }) =>
      this.sql.db
        .selectFrom('forge_status_outbox')
        .selectAll()
        .where('status', '=', sql.lit('queued') as never)
        .where('next_attempt_at', '<=', v.now)
        .orderBy('id', 'asc')
        .limit(v.limit),
    );
    return (await statement.run<StatusRow>(this.db, { now: now.getTime(), limit })).map(statusFromRow);
  }

  /** Whether a newer status of the same key is queued or was delivered: then this one must never be sent. */
  async isOvertaken(row: ForgeStatusEntity): Promise<boolean> {
    const statement = this.sql.prepare('forgeOutbox.isOvertaken', (v: { repository: string; commit: string; context: string; id: number }) =>
      this.sql.db
        .selectFrom('forge_status_outbox')
        .select('id')
        .where('repository', '=', v.repository)
        .where('commit_sha', '=', v.commit)
        .where('context', '=', v.context)
        .where('id', '>', v.id)
        .where('status', 'in', LIVE)
        .limit(sql.lit(1)),
    );
    return (await statement.run(this.db, { repository: row.repository, commit: row.commit, context: row.context, id: row.id })).length > 0;
  }

  async settle(id: number, change: StatusChange): Promise<void> {
    const set = fieldsAsColumns(change, STATUS_COLUMNS);
    const columns = Object.keys(set);
    if (!columns.length) return;
    // Only a row still queued: one superseded meanwhile stays superseded.
    const statement = this.sql.prepare(`forgeOutbox.settle ${columns.join(',')}`, (v: Record<string, unknown>) =>
      this.sql.db
        .updateTable('forge_status_outbox')
        .set(Object.fromEntries(columns.map((c) => [c, v[c]])) as never)
        .where('id', '=', v.id as number)
        .where('status', '=', sql.lit('queued') as never),
    );
    await statement.run(this.db, { ...set, id });
  }

  async logAttempt(entry: Omit<ForgeDeliveryEntity, 'id'>): Promise<void> {
    await insertReturningId(this.db, 'forge_deliveries', fieldsAsColumns(entry, DELIVERY_COLUMNS) as never);
  }

  /** The newest statuses with their attempts (the dashboard's delivery log), newest first. */
  async recent(limit: number): Promise<ForgeStatusEntity[]> {
    const statement = this.sql.prepare('forgeOutbox.recent', (v: { limit: number }) =>
      this.sql.db.selectFrom('forge_status_outbox').selectAll().orderBy('id', 'desc').limit(v.limit),
    );
    return (await statement.run<StatusRow>(this.db, { limit })).map(statusFromRow);
  }

  /**
   * A test status's one attempt, kept like any other: a row not queued (delivered or failed), so
   * the sender never touches it, with its attempt in the forge's delivery log; in one transaction.
   */
  recordTest(status: Omit<ForgeStatusEntity, 'id'>, attempt: Omit<ForgeDeliveryEntity, 'id' | 'outboxId'>): Promise<void> {
    return this.transactions.run(async (tx) => {
      const outboxId = await this.insertStatus(tx, status);
      await insertReturningId(tx, 'forge_deliveries', fieldsAsColumns({ ...attempt, outboxId }, DELIVERY_COLUMNS) as never);
    });
  }

  /** One forge's newest attempts, newest first (its delivery log). */
  async attemptsOfForge(forgeKey: string, limit: number): Promise<ForgeDeliveryEntity[]> {
    const statement = this.sql.prepare('forgeOutbox.attemptsOfForge', (v: { forgeKey: string; limit: number }) =>
      this.sql.db.selectFrom('forge_deliveries').selectAll().where('forge_key', '=', v.forgeKey).orderBy('id', 'desc').limit(v.limit),
    );
    return (await statement.run<DeliveryRow>(this.db, { forgeKey, limit })).map(deliveryFromRow);
  }

  async statusesById(ids: number[]): Promise<ForgeStatusEntity[]> {
    const rows: ForgeStatusEntity[] = [];
    for (const list of inLists(ids)) {
      const statement = this.sql.prepare(`forgeOutbox.statusesById ${list.length}`, (v: number[]) =>
        this.sql.db.selectFrom('forge_status_outbox').selectAll().where(
          'id',
          'in',
          list.map((_, i) => v[i]),
        ),
      );
      rows.push(...(await statement.run<StatusRow>(this.db, list)).map(statusFromRow));
    }
    return rows;
  }

  /** A deleted forge's delivery log goes with it (the statuses stay: they belong to their commits). */
  async forgetForge(forgeKey: string): Promise<void> {
    const statement = this.sql.prepare('forgeOutbox.forgetForge', (v: { forgeKey: string }) => this.sql.db.deleteFrom('forge_deliveries').where('forge_key', '=', v.forgeKey));
    await statement.run(this.db, { forgeKey });
  }

  /** The attempts of these statuses, oldest first. */
  async attemptsOf(outboxIds: number[]): Promise<ForgeDeliveryEntity[]> {
    const rows: ForgeDeliveryEntity[] = [];
    for (const list of inLists(outboxIds)) {
      const statement = this.sql.prepare(`forgeOutbox.attemptsOf ${list.length}`, (v: number[]) =>
        this.sql.db
          .selectFrom('forge_deliveries')
          .selectAll()
          .where(
            'outbox_id',
            'in',
            list.map((_, i) => v[i]),
          )
          .orderBy('id', 'asc'),
      );
      rows.push(...(await statement.run<DeliveryRow>(this.db, list)).map(deliveryFromRow));
    }
    return rows.sort((a, b) => a.id - b.id);
  }

  private insertStatus(tx: Sql, status: Omit<ForgeStatusEntity, 'id'>): Promise<number> {
    return insertReturningId(tx, 'forge_status_outbox', fieldsAsColumns(status, STATUS_COLUMNS) as never);
  }
}

const date = (v: unknown): Date | null => (v === null || v === undefined ? null : new Date(Number(v)));
const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

/** PostgreSQL gives bigint columns as strings, SQLite as numbers. */
function statusFromRow(r: StatusRow): ForgeStatusEntity {
  return {
    id: Number(r.id),
    repository: r.repository as string,
    commit: r.commit_sha as string,
    context: r.context as string,
    buildId: Number(r.build_id),
    state: r.state as StatusState,
    description: r.description as string,
    targetUrl: (r.target_url as string | null) ?? null,
    summary: (r.summary as string | null) ?? null,
    status: r.status as OutboxStatus,
    attempts: Number(r.attempts),
    nextAttemptAt: date(r.next_attempt_at)!,
    lastError: (r.last_error as string | null) ?? null,
    createdAt: date(r.created_at)!,
    deliveredAt: date(r.delivered_at),
    gateVersions: (r.gate_versions as string | null) ?? null,
  };
}

function deliveryFromRow(r: DeliveryRow): ForgeDeliveryEntity {
  return {
    id: Number(r.id),
    outboxId: Number(r.outbox_id),
    forge: r.forge as string,
    forgeKey: (r.forge_key as string | null) ?? null,
    attemptedAt: date(r.attempted_at)!,
    statusCode: num(r.status_code),
    error: (r.error as string | null) ?? null,
    durationMs: Number(r.duration_ms),
  };
}

/**
 * Whether a status made from these gate versions is older than one made from `newest`'s: some build's
 * gate is at an earlier version. Each status reads its builds' versions in one statement, so two of them
 * are ordered build by build; builds only one of them knows (uploaded or deleted between) say nothing.
 */
export function isOlder(versions: Record<number, number>, newest: string | null): boolean {
  if (!newest) return false;
  const held = JSON.parse(newest) as Record<string, number>;
  return Object.entries(versions).some(([buildId, version]) => buildId in held && version < held[buildId]);
}

/** Build by build, the higher of the two versions. */
function newestOf(versions: Record<number, number>, held: string | null): Record<string, number> {
  const merged: Record<string, number> = held ? (JSON.parse(held) as Record<string, number>) : {};
  for (const [buildId, version] of Object.entries(versions)) merged[buildId] = Math.max(version, merged[buildId] ?? 0);
  return merged;
}

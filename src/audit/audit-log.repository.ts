import { Inject, Injectable } from '@nestjs/common';
import { sql as rawSql } from 'kysely';
import { QueryBuilder } from '../database/query-builder/query-builder';
import { changedRows, insertReturningId, updateById } from '../database/query-builder/rows';
import { lockedForUpdate } from '../database/row-lock';
import { AuditEntryEntity } from './audit-entry.entity';
import type { AuditRecordFields } from './audit-record.columns';
import { AuditStateEntity } from './audit-state.entity';
import { SqlExecutor } from '../database/sql-executor';
import type { Sql } from '../database/sql';

const STATE_ID = 1;

export interface AuditFilter {
  action?: string;
  actor?: string;
  target?: string;
  since?: Date;
  until?: Date;
}

/** The values of a filtered read, bound by name. */
interface FilterValues {
  action: string;
  actorId: number;
  actor: string;
  target: string;
  since: number;
  until: number;
  /** The id cursor: entries before it (a page, newest first) or after it (the export, oldest first). */
  cursor: number;
  limit: number;
}

/** What a filtered read's statement branches on. */
interface FilterShape {
  action: 'family' | 'one' | null;
  actor: 'id or label' | 'label' | null;
  target: boolean;
  since: boolean;
  until: boolean;
  /** Newest first before the cursor, or oldest first after it. */
  order: 'newest before' | 'newest' | 'oldest after';
}

/** The largest id an actor filter may name as an id (a 32-bit integer column on both databases). */
const MAX_ACTOR_ID = 2147483647;

function shapeOf(filter: AuditFilter, order: FilterShape['order']): FilterShape {
  const numericActor = !!filter.actor && /^[1-9][0-9]{0,9}$/.test(filter.actor) && Number(filter.actor) <= MAX_ACTOR_ID;
  return {
    // `auth.` (a trailing dot) names a family of actions; anything else one action.
    action: filter.action ? (filter.action.endsWith('.') ? 'family' : 'one') : null,
    actor: filter.actor ? (numericActor ? 'id or label' : 'label') : null,
    target: !!filter.target,
    since: !!filter.since,
    until: !!filter.until,
    order,
  };
}

function valuesOf(filter: AuditFilter, cursor: number, limit: number): FilterValues {
  const action = filter.action ?? '';
  return {
    action: action.endsWith('.') ? `${action.replace(/[%_]/g, '')}%` : action,
    actorId: Number(filter.actor ?? 0) || 0,
    actor: filter.actor ?? '',
    target: filter.target ?? '',
    since: filter.since?.getTime() ?? 0,
    until: filter.until?.getTime() ?? 0,
    cursor,
    limit,
  };
}

/** A page or batch of entries matching a filter: one prepared statement per shape (the hot read of GET /audit). */
export function auditEntriesStatement(sql: QueryBuilder, shape: FilterShape) {
  const key = `audit.entries ${shape.action} ${shape.actor} ${shape.target} ${shape.since} ${shape.until} ${shape.order}`;
  return sql.prepare(key, (v: FilterValues) => {
    let query = sql.db.selectFrom('audit_entries as e').select(ENTRY_COLUMNS.map((column) => `e.${column}` as const));
    if (shape.action === 'family') query = query.where('e.action', 'like', v.action);
    if (shape.action === 'one') query = query.where('e.action', '=', v.action);
    if (shape.actor === 'id or label') query = query.where((eb) => eb.or([eb('e.actor_id', '=', v.actorId), eb('e.actor_label', '=', v.actor)]));
    if (shape.actor === 'label') query = query.where('e.actor_label', '=', v.actor);
    if (shape.target) query = query.where('e.target', '=', v.target);
    if (shape.since) query = query.where('e.at', '>=', v.since);
    if (shape.until) query = query.where('e.at', '<', v.until);
    if (shape.order === 'newest before') query = query.where('e.id', '<', v.cursor);
    if (shape.order === 'oldest after') query = query.where('e.id', '>', v.cursor);
    return query.orderBy('e.id', shape.order === 'oldest after' ? 'asc' : 'desc').limit(v.limit);
  });
}

const ENTRY_COLUMNS = ['id', 'at', 'actor_id', 'actor_label', 'via', 'action', 'target', 'client_address', 'details', 'prev_hash', 'hash'] as const;
const PENDING_COLUMNS = ['id', 'at', 'actor_id', 'actor_label', 'via', 'action', 'target', 'client_address', 'details', 'mac'] as const;
const STATE_COLUMNS = ['id', 'retention_days', 'anchor_hash', 'anchor_id', 'head_hash', 'head_count', 'head_last_id', 'head_mac', 'head_key_id'] as const;

interface EntryRow {
  id: number | string;
  at: number | string;
  actor_id: number | string | null;
  actor_label: string;
  via: string;
  action: string;
  target: string | null;
  client_address: string | null;
  details: string;
  prev_hash: string;
  hash: string;
}

type PendingDbRow = Omit<EntryRow, 'prev_hash' | 'hash'>;

/** An entry's fields before it is chained: `details` already made safe, as JSON text. */
export type PendingRow = AuditRecordFields;

/** A row of audit_pending: its id (to delete it once chained) and the relay's signature of it. */
export type WaitingRow = PendingRow & { id: number; mac: string };

interface StateRow {
  id: number | string;
  retention_days: number | string | null;
  anchor_hash: string | null;
  anchor_id: number | string | null;
  head_hash: string | null;
  head_count: number | string;
  head_last_id: number | string | null;
  head_mac: string | null;
  head_key_id: string | null;
}

/**
 * The audit_entries and audit_state tables. Reads that are part of a transaction take its `tx`;
 * the verifier, which runs on a data source of its own (`svc audit verify`), makes one with `of()`.
 */
@Injectable()
export class AuditLogRepository {
  private readonly sql: QueryBuilder;

  constructor(@Inject(SqlExecutor) private readonly db: Sql) {
    this.sql = QueryBuilder.for(db.dialect);
  }

  /** On `on` alone (a transaction of the CLI's read-only data source). */
  static of(on: Sql): AuditLogRepository {
    return new AuditLogRepository(on);
  }

  /** The state row; `lock` inside a transaction holds it until the transaction ends (PostgreSQL: appends are one line). */
  async state(tx?: Sql, lock = false): Promise<AuditStateEntity | null> {
    const statement = this.sql.prepare(`audit.state${lock ? ' locked' : ''}`, (v: { id: number }) => {
      const select = this.sql.db.selectFrom('audit_state').select(STATE_COLUMNS).where('id', '=', v.id);
      return lock ? lockedForUpdate(this.sql, select) : select;
    });
    const [row] = await statement.run<StateRow>(tx ?? this.db, { id: STATE_ID });
    return row ? toState(row) : null;
  }

  async updateState(changes: Partial<Omit<AuditStateEntity, 'id'>>, tx?: Sql): Promise<void> {
    await updateById(tx ?? this.db, 'audit_state', STATE_ID, {
      retention_days: changes.retentionDays,
      anchor_hash: changes.anchorHash,
      anchor_id: changes.anchorId,
      head_hash: changes.headHash,
      head_count: changes.headCount,
      head_last_id: changes.headLastId,
      head_mac: changes.headMac,
      head_key_id: changes.headKeyId,
    });
  }

  /**
   * Chained entries, in the caller's transaction, in one statement: on PostgreSQL a round trip for the
   * lot, not one an entry (the writer's round used to insert them one by one, and a stream of ~3,000
   * entries a second outgrew it). Their ids must follow the chain's order; both databases number a
   * multi-row VALUES in its order, which neither promises, so the ids are checked against the hashes
   * they came back with: otherwise this throws (the transaction rolls back, the writer writes each
   * entry on its own).
   */
  async insertChained(entries: Omit<AuditEntryEntity, 'id'>[], tx: Sql): Promise<AuditEntryEntity[]> {
    if (!entries.length) return [];
    const statement = this.sql.prepare(`audit.insertChained ${entries.length}`, (v: Record<string, unknown>) =>
      this.sql.db
        .insertInto('audit_entries')
        .values(entries.map((_, i) => Object.fromEntries(CHAINED_COLUMNS.map((column) => [column, v[`${column}${i}`]])) as never))
        .returning(['id', 'hash']),
    );
    const values: Record<string, unknown> = {};
    entries.forEach((entry, i) => {
      const row: Record<string, unknown> = { ...recordRow(entry), prev_hash: entry.prevHash, hash: entry.hash };
      for (const column of CHAINED_COLUMNS) values[`${column}${i}`] = row[column];
    });
    const rows = await statement.run<{ id: number | string; hash: string }>(tx, values);
    const byId = rows.map((row) => ({ id: Number(row.id), hash: row.hash })).sort((a, b) => a.id - b.id);
    if (byId.length !== entries.length || byId.some((row, i) => row.hash !== entries[i].hash)) {
      throw new Error('audit_entries: a multi-row insert numbered the entries out of the chain\'s order');
    }
    return entries.map((entry, i) => Object.assign(new AuditEntryEntity(), { ...entry, id: byId[i].id }));
  }

  /** An entry written in the caller's transaction, to be chained by the log's writer once it has committed. */
  async insertPending(entry: PendingRow, mac: string, tx: Sql): Promise<void> {
    await insertReturningId(tx, 'audit_pending', { ...recordRow(entry), mac });
  }

  /** The oldest `limit` entries waiting to be chained (to chain them: read under the state row's lock, on its `tx`). */
  async pending(limit: number, tx: Sql = this.db): Promise<WaitingRow[]> {
    const statement = this.sql.prepare('audit.pending', (v: { limit: number }) =>
      this.sql.db.selectFrom('audit_pending').select(PENDING_COLUMNS).orderBy('id').limit(v.limit),
    );
    return (await statement.run<WaitingDbRow>(tx, { limit })).map(toWaiting);
  }

  /** One waiting entry, if it still waits (read under the state row's lock: another writer may have chained it). */
  async pendingRow(id: number, tx: Sql): Promise<WaitingRow[]> {
    const statement = this.sql.prepare('audit.pendingRow', (v: { id: number }) => this.sql.db.selectFrom('audit_pending').select(PENDING_COLUMNS).where('id', '=', v.id));
    return (await statement.run<WaitingDbRow>(tx, { id })).map(toWaiting);
  }

  /** Removes these waiting entries (chained in the same transaction): exactly these ids, never a range, which could take one committed since. */
  async deletePending(ids: number[], tx: Sql): Promise<void> {
    if (!ids.length) return;
    const statement = this.sql.prepare(`audit.deletePending ${ids.length}`, (v: number[]) =>
      this.sql.db.deleteFrom('audit_pending').where('id', 'in', Array.from({ length: ids.length }, (_, i) => v[i])),
    );
    await statement.run(tx, ids);
  }

  /** How many entries wait to be chained (`svc audit verify` reports them). */
  async countPending(tx?: Sql): Promise<number> {
    const statement = this.sql.prepare('audit.countPending', () => this.sql.db.selectFrom('audit_pending').select((eb) => eb.fn.countAll().as('n')));
    const [row] = await statement.run<{ n: number | string }>(tx ?? this.db, {});
    return Number(row.n);
  }

  /** Newest first, `limit` entries matching the filter, older than `before` (an id cursor) when given. */
  async page(filter: AuditFilter, limit: number, before?: number): Promise<AuditEntryEntity[]> {
    const statement = auditEntriesStatement(this.sql, shapeOf(filter, before === undefined ? 'newest' : 'newest before'));
    return (await statement.run<EntryRow>(this.db, valuesOf(filter, before ?? 0, limit))).map(toEntry);
  }

  /** Oldest first, `limit` entries matching the filter after the id `after`. */
  async after(filter: AuditFilter, after: number, limit: number, tx?: Sql): Promise<AuditEntryEntity[]> {
    const statement = auditEntriesStatement(this.sql, shapeOf(filter, 'oldest after'));
    return (await statement.run<EntryRow>(tx ?? this.db, valuesOf(filter, after, limit))).map(toEntry);
  }

  /** The newest entry written before `cutoff` (epoch ms), or null. */
  async newestBefore(cutoff: number, tx: Sql): Promise<AuditEntryEntity | null> {
    const statement = this.sql.prepare('audit.newestBefore', (v: { cutoff: number; limit: number }) =>
      this.sql.db.selectFrom('audit_entries').select(ENTRY_COLUMNS).where('at', '<', v.cutoff).orderBy('id', 'desc').limit(v.limit),
    );
    const [row] = await statement.run<EntryRow>(tx, { cutoff, limit: 1 });
    return row ? toEntry(row) : null;
  }

  /** The newest entry, or null. */
  async newest(tx: Sql): Promise<AuditEntryEntity | null> {
    const statement = auditEntriesStatement(this.sql, shapeOf({}, 'newest'));
    const [entry] = await statement.run<EntryRow>(tx, valuesOf({}, 0, 1));
    return entry ? toEntry(entry) : null;
  }

  /** Deletes the entries up to this id; how many. */
  async deleteThrough(id: number, tx: Sql): Promise<number> {
    const statement = this.sql.prepare('audit.deleteThrough', (v: { id: number }) => this.sql.db.deleteFrom('audit_entries').where('id', '<=', v.id).returning('id'));
    return (await changedRows(statement, tx, { id })).length;
  }

  async count(tx?: Sql): Promise<number> {
    const statement = this.sql.prepare('audit.count', () => this.sql.db.selectFrom('audit_entries').select((eb) => eb.fn.countAll().as('n')));
    const [row] = await statement.run<{ n: number | string }>(tx ?? this.db, {});
    return Number(row.n);
  }

  /** Whether any entry has this action. */
  async hasAction(action: string): Promise<boolean> {
    const statement = this.sql.prepare('audit.hasAction', (v: { action: string; limit: number }) =>
      this.sql.db.selectFrom('audit_entries').select('id').where('action', '=', v.action).limit(v.limit),
    );
    return (await statement.run(this.db, { action, limit: 1 })).length > 0;
  }

  /** PostgreSQL: the caller's transaction reads one snapshot throughout (its first statement). SQLite's transactions already do. */
  async readOneSnapshot(tx: Sql): Promise<void> {
    if (!this.sql.postgres) return;
    const statement = this.sql.prepare('audit.repeatableRead', () => ({ compile: () => rawSql`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ`.compile(this.sql.db) }));
    await statement.run(tx, {});
  }
}

function toEntry(row: EntryRow): AuditEntryEntity {
  return Object.assign(new AuditEntryEntity(), { id: Number(row.id), ...toFields(row), prevHash: row.prev_hash, hash: row.hash });
}

/** audit_entries' columns as insertChained() writes them (the database numbers the entries). */
const CHAINED_COLUMNS = ENTRY_COLUMNS.filter((column) => column !== 'id');

type WaitingDbRow = PendingDbRow & { mac: string };

function toWaiting(row: WaitingDbRow): WaitingRow {
  return { ...toFields(row), id: Number(row.id), mac: row.mac };
}

/** The columns every audit record has, as a row. */
function recordRow(entry: AuditRecordFields) {
  return {
    at: entry.at.getTime(),
    actor_id: entry.actorId,
    actor_label: entry.actorLabel,
    via: entry.via,
    action: entry.action,
    target: entry.target,
    client_address: entry.clientAddress,
    details: entry.details,
  };
}

function toFields(row: PendingDbRow): PendingRow {
  return {
    at: new Date(Number(row.at)),
    actorId: row.actor_id === null ? null : Number(row.actor_id),
    actorLabel: row.actor_label,
    via: row.via,
    action: row.action,
    target: row.target,
    clientAddress: row.client_address,
    details: row.details,
  };
}

const orNull = (value: number | string | null) => (value === null ? null : Number(value));

function toState(row: StateRow): AuditStateEntity {
  return Object.assign(new AuditStateEntity(), {
    id: Number(row.id),
    retentionDays: orNull(row.retention_days),
    anchorHash: row.anchor_hash,
    anchorId: orNull(row.anchor_id),
    headHash: row.head_hash,
    headCount: Number(row.head_count),
    headLastId: orNull(row.head_last_id),
    headMac: row.head_mac,
    headKeyId: row.head_key_id,
  });
}

import { Injectable } from '@nestjs/common';
import { sql } from 'kysely';
import { QueryBuilder } from '../database/query-builder/query-builder';
import type { OutboxMessageStatus } from './outbox-message.entity';
import { SqlExecutor } from '../database/sql-executor';

/** A message as the worker reads it. */
export interface OutboxRow {
  id: number;
  kind: string;
  destination: string;
  payload: string;
  attempts: number;
  createdAt: number;
}

/** One destination's state, for the dashboard. */
export interface DestinationRow {
  destination: string;
  kind: string;
  queued: number;
  delivered: number;
  failed: number;
  lastAttemptAt: number | null;
  lastError: string | null;
}

interface RawOutboxRow {
  id: number | string;
  kind: string;
  destination: string;
  payload: string;
  attempts: number | string;
  created_at: number | string;
}

/** The outbox module's one table (migration Outbox); only this module reads or writes it. */
@Injectable()
export class OutboxRepository {
  private readonly sql: QueryBuilder;

  constructor(private readonly db: SqlExecutor) {
    this.sql = QueryBuilder.for(db.dialect);
  }

  /** Queued in the caller's transaction when there is one: the message commits with its cause. */
  async insert(message: { kind: string; destination: string; payload: string; now: number }): Promise<void> {
    const statement = this.sql.prepare('outbox.insert', (v: { kind: string; destination: string; payload: string; now: number; queued: string; zero: number }) =>
      this.sql.db.insertInto('outbox_messages').values({
        kind: v.kind,
        destination: v.destination,
        payload: v.payload,
        status: v.queued,
        attempts: v.zero,
        next_attempt_at: v.now,
        created_at: v.now,
      }),
    );
    await statement.run(this.db, { ...message, queued: 'queued', zero: 0 });
  }

  /** Queued messages due by `now`, oldest first. */
  async due(now: number, limit: number): Promise<OutboxRow[]> {
    const statement = this.sql.prepare('outbox.due', (v: { now: number; limit: number; queued: string }) =>
      this.sql.db
        .selectFrom('outbox_messages')
        .select(['id', 'kind', 'destination', 'payload', 'attempts', 'created_at'])
        .where('status', '=', v.queued)
        .where('next_attempt_at', '<=', v.now)
        .orderBy('id')
        .limit(v.limit),
    );
    const rows = await statement.run<RawOutboxRow>(this.db, { now, limit, queued: 'queued' });
    return rows.map((r) => ({ id: Number(r.id), kind: r.kind, destination: r.destination, payload: r.payload, attempts: Number(r.attempts), createdAt: Number(r.created_at) }));
  }

  async anyQueued(): Promise<boolean> {
    const statement = this.sql.prepare('outbox.anyQueued', (v: { queued: string; one: number }) =>
      this.sql.db.selectFrom('outbox_messages').select('id').where('status', '=', v.queued).limit(v.one),
    );
    return (await statement.run(this.db, { queued: 'queued', one: 1 })).length > 0;
  }

  /** Only a row still queued changes: one settled by another sender stays as it is. */
  async settle(
    id: number,
    change: { status: OutboxMessageStatus; attempts: number; nextAttemptAt: number; lastError: string | null; lastAttemptAt: number; deliveredAt: number | null },
  ): Promise<void> {
    const statement = this.sql.prepare(
      'outbox.settle',
      (v: { id: number; status: string; attempts: number; next: number; error: string | null; attempted: number; delivered: number | null; queued: string }) =>
        this.sql.db
          .updateTable('outbox_messages')
          .set({ status: v.status, attempts: v.attempts, next_attempt_at: v.next, last_error: v.error, last_attempt_at: v.attempted, delivered_at: v.delivered })
          .where('id', '=', v.id)
          .where('status', '=', v.queued),
    );
    await statement.run(this.db, {
      id,
      status: change.status,
      attempts: change.attempts,
      next: change.nextAttemptAt,
      error: change.lastError,
      attempted: change.lastAttemptAt,
      delivered: change.deliveredAt,
      queued: 'queued',
    });
  }

  /** Every destination with its counts and its newest attempt's error (the dashboard's delivery view). */
  async destinations(): Promise<DestinationRow[]> {
    const statement = this.sql.prepare('outbox.destinations', (v: { queued: string; delivered: string; failed: string; one: number }) =>
      this.sql.db
        .selectFrom('outbox_messages as m')
        .select([
          'm.destination',
          sql<string>`max(m.kind)`.as('kind'),
          sql<number>`sum(case when m.status = ${v.queued} then 1 else 0 end)`.as('queued'),
          sql<number>`sum(case when m.status = ${v.delivered} then 1 else 0 end)`.as('delivered'),
          sql<number>`sum(case when m.status = ${v.failed} then 1 else 0 end)`.as('failed'),
          sql<number | null>`max(m.last_attempt_at)`.as('last_attempt_at'),
          (eb) =>
            eb
              .selectFrom('outbox_messages as e')
              .select('e.last_error')
              .whereRef('e.destination', '=', 'm.destination')
              .where('e.last_attempt_at', 'is not', null)
              .orderBy('e.last_attempt_at', 'desc')
              .orderBy('e.id', 'desc')
              .limit(v.one)
              .as('last_error'),
        ])
        .groupBy('m.destination')
        .orderBy('m.destination'),
    );
    const rows = await statement.run<Record<string, string | number | null>>(this.db, { queued: 'queued', delivered: 'delivered', failed: 'failed', one: 1 });
    return rows.map((r) => ({
      destination: String(r.destination),
      kind: String(r.kind),
      queued: Number(r.queued),
      delivered: Number(r.delivered),
      failed: Number(r.failed),
      lastAttemptAt: r.last_attempt_at === null ? null : Number(r.last_attempt_at),
      lastError: (r.last_error as string | null) ?? null,
    }));
  }
}

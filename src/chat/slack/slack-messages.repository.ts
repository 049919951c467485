import { Injectable } from '@nestjs/common';
import type { Compilable } from 'kysely';
import { QueryBuilder } from '../../database/query-builder/query-builder';
import { SqlExecutor } from '../../database/sql-executor';

/** A build's message in a channel: where chat.update points, and which outbox message last wrote it. */
export interface PostedSlackMessage {
  ts: string;
  outboxMessageId: number;
}

/** The chat module's table slack_messages (migration SlackMessages); only this module reads or writes it. */
@Injectable()
export class SlackMessagesRepository {
  private readonly sql: QueryBuilder;

  constructor(private readonly db: SqlExecutor) {
    this.sql = QueryBuilder.for(db.dialect);
  }

  private run<V extends object, R = Record<string, unknown>>(key: string, build: (values: V) => Compilable<unknown>, values: V): Promise<R[]> {
    return this.sql.prepare(key, build).run<R>(this.db, values);
  }

  async find(buildId: number, channel: string): Promise<PostedSlackMessage | null> {
    const rows = await this.run(
      'slackMessages.find',
      (v: { buildId: number; channel: string }) =>
        this.sql.db.selectFrom('slack_messages').select(['ts', 'outbox_message_id']).where('build_id', '=', v.buildId).where('channel', '=', v.channel),
      { buildId, channel },
    );
    return rows[0] ? { ts: String(rows[0].ts), outboxMessageId: Number(rows[0].outbox_message_id) } : null;
  }

  /** Keeps the message's ts (first post) or the newest outbox message that wrote it (an update). */
  async save(m: { buildId: number; channel: string; ts: string; outboxMessageId: number; now: number }): Promise<void> {
    await this.run(
      'slackMessages.save',
      (v: { buildId: number; channel: string; ts: string; messageId: number; now: number }) =>
        this.sql.db
          .insertInto('slack_messages')
          .values({ build_id: v.buildId, channel: v.channel, ts: v.ts, outbox_message_id: v.messageId, updated_at: v.now })
          .onConflict((oc) =>
            oc.columns(['build_id', 'channel']).doUpdateSet((eb) => ({ ts: eb.ref('excluded.ts'), outbox_message_id: eb.ref('excluded.outbox_message_id'), updated_at: eb.ref('excluded.updated_at') })),
          ),
      { buildId: m.buildId, channel: m.channel, ts: m.ts, messageId: m.outboxMessageId, now: m.now },
    );
  }
}

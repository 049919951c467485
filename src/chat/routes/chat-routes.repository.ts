import { Injectable } from '@nestjs/common';
import type { Compilable } from 'kysely';
import { OnEventOnEveryInstance } from '../../cluster/on-every-instance.decorator';
import { ReadCache } from '../../common/read-cache';
import { ChatRoutesChangedEvent } from '../events/chat-routes-changed.event';
import { QueryBuilder } from '../../database/query-builder/query-builder';
import { SqlExecutor } from '../../database/sql-executor';

export type ChatKind = 'slack' | 'teams';

/** A dashboard chat destination as the module uses it. */
export interface ChatRouteRow {
  id: number;
  kind: ChatKind;
  target: string;
  urlSealed: string | null;
  apps: string[] | null;
  branches: string[] | null;
  createdAt: number;
}

const COLUMNS = ['id', 'kind', 'target', 'url_sealed', 'apps', 'branches', 'created_at'] as const;
const list = (v: unknown): string[] | null => (v === null || v === undefined ? null : (JSON.parse(String(v)) as string[]));

/** The chat module's table chat_routes (migration ChatRoutes); only this module reads or writes it. */
@Injectable()
export class ChatRoutesRepository {
  private readonly sql: QueryBuilder;
  /** Read after every upload and verdict, changed by an Admin now and then. */
  private readonly rows = new ReadCache(() => this.read());

  constructor(private readonly db: SqlExecutor) {
    this.sql = QueryBuilder.for(db.dialect);
  }

  private run<V extends object, R = Record<string, unknown>>(key: string, build: (values: V) => Compilable<unknown>, values: V): Promise<R[]> {
    return this.sql.prepare(key, build).run<R>(this.db, values);
  }

  /** Every dashboard destination (shared: not to be changed). */
  all(): Promise<readonly ChatRouteRow[]> {
    return this.rows.get();
  }

  @OnEventOnEveryInstance(ChatRoutesChangedEvent.eventName)
  changed(): void {
    this.rows.clear();
  }

  private async read(): Promise<ChatRouteRow[]> {
    const rows = await this.run('chatRoutes.all', () => this.sql.db.selectFrom('chat_routes').select(COLUMNS).orderBy('id'), {});
    return rows.map((r) => ({
      id: Number(r.id),
      kind: r.kind as ChatKind,
      target: String(r.target),
      urlSealed: (r.url_sealed as string | null) ?? null,
      apps: list(r.apps),
      branches: list(r.branches),
      createdAt: Number(r.created_at),
    }));
  }

  async insert(r: { kind: ChatKind; target: string; urlSealed: string | null; apps: string[] | null; branches: string[] | null; now: number }): Promise<void> {
    await this.run(
      'chatRoutes.insert',
      (v: { kind: string; target: string; url: string | null; apps: string | null; branches: string | null; now: number }) =>
        this.sql.db.insertInto('chat_routes').values({ kind: v.kind, target: v.target, url_sealed: v.url, apps: v.apps, branches: v.branches, created_at: v.now }),
      { kind: r.kind, target: r.target, url: r.urlSealed, apps: r.apps && JSON.stringify(r.apps), branches: r.branches && JSON.stringify(r.branches), now: r.now },
    );
    this.rows.clear();
  }

  async delete(id: number): Promise<void> {
    await this.run('chatRoutes.delete', (v: { id: number }) => this.sql.db.deleteFrom('chat_routes').where('id', '=', v.id), { id });
    this.rows.clear();
  }
}

import { Injectable } from '@nestjs/common';
import type { Compilable } from 'kysely';
import { OnEventOnEveryInstance } from '../cluster/on-every-instance.decorator';
import { ReadCache } from '../common/read-cache';
import { QueryBuilder } from '../database/query-builder/query-builder';
import { SqlExecutor } from '../database/sql-executor';
import { TestersChangedEvent } from './events/testers-changed.event';

/** A tester as the module uses it. */
export interface Tester {
  id: number;
  appId: number;
  email: string;
  name: string | null;
  /** null: every branch. */
  branches: string[] | null;
  onlyDone: boolean;
  unsubscribedAt: number | null;
  lastRefusal: string | null;
  refusedAt: number | null;
  createdAt: number;
}

export interface LatestLink {
  id: number;
  appId: number;
  branch: string | null;
  createdAt: number;
  revokedAt: number | null;
}

type Row = Record<string, unknown>;
const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const TESTER_COLUMNS = ['id', 'app_id', 'email', 'name', 'branches', 'only_done', 'unsubscribed_at', 'last_refusal', 'refused_at', 'created_at'] as const;
const LATEST_COLUMNS = ['id', 'app_id', 'branch', 'created_at', 'revoked_at'] as const;

function testerOf(r: Row): Tester {
  return {
    id: Number(r.id),
    appId: Number(r.app_id),
    email: String(r.email),
    name: (r.name as string | null) ?? null,
    branches: r.branches === null ? null : (JSON.parse(String(r.branches)) as string[]),
    // PostgreSQL gives a boolean, SQLite 1 or 0.
    onlyDone: r.only_done === true || Number(r.only_done) === 1,
    unsubscribedAt: num(r.unsubscribed_at),
    lastRefusal: (r.last_refusal as string | null) ?? null,
    refusedAt: num(r.refused_at),
    createdAt: Number(r.created_at),
  };
}

function latestOf(r: Row): LatestLink {
  return { id: Number(r.id), appId: Number(r.app_id), branch: (r.branch as string | null) ?? null, createdAt: Number(r.created_at), revokedAt: num(r.revoked_at) };
}

/** The testers module's tables (migration Testers); only this module reads or writes them. */
@Injectable()
export class TestersRepository {
  private readonly sql: QueryBuilder;
  /** Asked after every upload and Done; most apps have no testers, and they change now and then. */
  private readonly appsWithTesters = new ReadCache(() => this.readAppsWithTesters());

  constructor(private readonly executor: SqlExecutor) {
    this.sql = QueryBuilder.for(executor.dialect);
  }

  private get db() {
    return this.sql.db;
  }

  /** A boolean as the dialect binds it (the SQLite driver binds no booleans). */
  private flag(value: boolean): boolean | number {
    return this.sql.postgres ? value : value ? 1 : 0;
  }

  private run<V extends object, R = Row>(key: string, build: (values: V) => Compilable<unknown>, values: V): Promise<R[]> {
    return this.sql.prepare(key, build).run<R>(this.executor, values);
  }

  /** Whether the app has any tester, subscribed or not. */
  async hasTesters(appId: number): Promise<boolean> {
    return (await this.appsWithTesters.get()).has(appId);
  }

  private async readAppsWithTesters(): Promise<ReadonlySet<number>> {
    const rows = await this.run('testers.apps', () => this.db.selectFrom('app_testers').select('app_id').distinct(), {});
    return new Set(rows.map((r) => Number(r.app_id)));
  }

  @OnEventOnEveryInstance(TestersChangedEvent.eventName)
  testersChanged(): void {
    this.appsWithTesters.clear();
  }

  async listOfApp(appId: number): Promise<Tester[]> {
    const rows = await this.run('testers.ofApp', (v: { appId: number }) => this.db.selectFrom('app_testers').select(TESTER_COLUMNS).where('app_id', '=', v.appId).orderBy('email'), { appId });
    return rows.map(testerOf);
  }

  async find(appId: number, id: number): Promise<Tester | null> {
    const rows = await this.run('testers.find', (v: { appId: number; id: number }) => this.db.selectFrom('app_testers').select(TESTER_COLUMNS).where('app_id', '=', v.appId).where('id', '=', v.id), { appId, id });
    return rows[0] ? testerOf(rows[0]) : null;
  }

  async findByEmail(appId: number, email: string): Promise<Tester | null> {
    const rows = await this.run('testers.byEmail', (v: { appId: number; email: string }) => this.db.selectFrom('app_testers').select(TESTER_COLUMNS).where('app_id', '=', v.appId).where('email', '=', v.email), { appId, email });
    return rows[0] ? testerOf(rows[0]) : null;
  }

  async insert(t: { appId: number; email: string; name: string | null; branches: string[] | null; onlyDone: boolean; unsubscribeHash: string; now: number }): Promise<void> {
    await this.run(
      'testers.insert',
      (v: { appId: number; email: string; name: string | null; branches: string | null; onlyDone: boolean | number; hash: string; now: number }) =>
        this.db.insertInto('app_testers').values({ app_id: v.appId, email: v.email, name: v.name, branches: v.branches, only_done: v.onlyDone, unsubscribe_hash: v.hash, created_at: v.now }),
      { appId: t.appId, email: t.email, name: t.name, branches: t.branches === null ? null : JSON.stringify(t.branches), onlyDone: this.flag(t.onlyDone), hash: t.unsubscribeHash, now: t.now },
    );
    this.appsWithTesters.clear();
  }

  async update(id: number, t: Pick<Tester, 'name' | 'branches' | 'onlyDone'>): Promise<void> {
    await this.run(
      'testers.update',
      (v: { id: number; name: string | null; branches: string | null; onlyDone: boolean | number }) =>
        this.db.updateTable('app_testers').set({ name: v.name, branches: v.branches, only_done: v.onlyDone }).where('id', '=', v.id),
      { id, name: t.name, branches: t.branches === null ? null : JSON.stringify(t.branches), onlyDone: this.flag(t.onlyDone) },
    );
  }

  async delete(id: number): Promise<void> {
    await this.run('testers.delete', (v: { id: number }) => this.db.deleteFrom('app_testers').where('id', '=', v.id), { id });
    this.appsWithTesters.clear();
  }

  /** The tester whose unsubscribe token this is; unsubscribes them (once) and returns them. */
  async unsubscribe(hash: string, now: number): Promise<Tester | null> {
    await this.run(
      'testers.unsubscribe',
      (v: { hash: string; now: number }) => this.db.updateTable('app_testers').set({ unsubscribed_at: v.now }).where('unsubscribe_hash', '=', v.hash).where('unsubscribed_at', 'is', null),
      { hash, now },
    );
    const rows = await this.run('testers.byHash', (v: { hash: string }) => this.db.selectFrom('app_testers').select(TESTER_COLUMNS).where('unsubscribe_hash', '=', v.hash), { hash });
    return rows[0] ? testerOf(rows[0]) : null;
  }

  /** A new unsubscribe token (a notice carries the token; only its hash is kept, so each notice brings a fresh one). */
  async setUnsubscribeHash(id: number, hash: string): Promise<void> {
    await this.run('testers.setHash', (v: { id: number; hash: string }) => this.db.updateTable('app_testers').set({ unsubscribe_hash: v.hash }).where('id', '=', v.id), { id, hash });
  }

  async recordRefusal(appId: number, email: string, error: string, now: number): Promise<void> {
    await this.run(
      'testers.refusal',
      (v: { appId: number; email: string; error: string; now: number }) =>
        this.db.updateTable('app_testers').set({ last_refusal: v.error, refused_at: v.now }).where('app_id', '=', v.appId).where('email', '=', v.email),
      { appId, email, error, now },
    );
  }

  /** Claims the (tester, build) notice: false when it was already sent (or is being sent). */
  async linkSent(testerId: number, buildId: number): Promise<boolean> {
    const rows = await this.run('testers.linkSent', (v: { testerId: number; buildId: number }) => this.db.selectFrom('tester_links').select('id').where('tester_id', '=', v.testerId).where('build_id', '=', v.buildId), { testerId, buildId });
    return rows.length > 0;
  }

  async insertLink(testerId: number, buildId: number, shareLinkId: number): Promise<void> {
    await this.run(
      'testers.insertLink',
      (v: { testerId: number; buildId: number; shareLinkId: number }) => this.db.insertInto('tester_links').values({ tester_id: v.testerId, build_id: v.buildId, share_link_id: v.shareLinkId }),
      { testerId, buildId, shareLinkId },
    );
  }

  async shareLinksOf(testerId: number): Promise<number[]> {
    const rows = await this.run('testers.shareLinksOf', (v: { testerId: number }) => this.db.selectFrom('tester_links').select('share_link_id').where('tester_id', '=', v.testerId), { testerId });
    return rows.map((r) => Number(r.share_link_id));
  }

  async insertLatest(appId: number, branch: string | null, tokenHash: string, now: number): Promise<LatestLink> {
    await this.run(
      'latest.insert',
      (v: { appId: number; branch: string | null; hash: string; now: number }) => this.db.insertInto('latest_build_links').values({ app_id: v.appId, branch: v.branch, token_hash: v.hash, created_at: v.now }),
      { appId, branch, hash: tokenHash, now },
    );
    return (await this.latestByHash(tokenHash))!;
  }

  async latestOfApp(appId: number): Promise<LatestLink[]> {
    const rows = await this.run('latest.ofApp', (v: { appId: number }) => this.db.selectFrom('latest_build_links').select(LATEST_COLUMNS).where('app_id', '=', v.appId).orderBy('id', 'desc'), { appId });
    return rows.map(latestOf);
  }

  async latestByHash(hash: string): Promise<LatestLink | null> {
    const rows = await this.run('latest.byHash', (v: { hash: string }) => this.db.selectFrom('latest_build_links').select(LATEST_COLUMNS).where('token_hash', '=', v.hash), { hash });
    return rows[0] ? latestOf(rows[0]) : null;
  }

  async revokeLatest(appId: number, id: number, now: number): Promise<boolean> {
    const found = await this.run('latest.find', (v: { appId: number; id: number }) => this.db.selectFrom('latest_build_links').select('id').where('app_id', '=', v.appId).where('id', '=', v.id), { appId, id });
    if (!found.length) return false;
    await this.run(
      'latest.revoke',
      (v: { id: number; now: number }) => this.db.updateTable('latest_build_links').set({ revoked_at: v.now }).where('id', '=', v.id).where('revoked_at', 'is', null),
      { id, now },
    );
    return true;
  }
}

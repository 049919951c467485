import { Injectable } from '@nestjs/common';
import { OnEventOnEveryInstance } from '../cluster/on-every-instance.decorator';
import { ReadCache } from '../common/read-cache';
import { GatePolicyChangedEvent } from './events/gate-changed.event';
import { QueryBuilder } from '../database/query-builder/query-builder';
import { TransactionRunner } from '../database/transaction-runner';
import type { GateState, ReviewVerdict } from './release-gate.entities';
import { SqlExecutor } from '../database/sql-executor';
import type { Sql } from '../database/sql';

/** A review row as read. */
export interface ReviewRow {
  id: number;
  buildId: number;
  reviewerId: number | null;
  reviewerEmail: string;
  reviewerDisplayName: string | null;
  reviewerRole: string;
  verdict: ReviewVerdict;
  comment: string | null;
  createdAt: Date;
  carriedFromBuildId: number | null;
  carriedReason: string | null;
}

export type NewReview = Omit<ReviewRow, 'id'>;

export interface StateRow {
  buildId: number;
  state: GateState | 'none';
  checklist: string;
  fileSha256: string | null;
  unpublished: boolean;
  evaluatedAt: Date;
  /** Stored changes so far (each saveState adds one). */
  version: number;
}

interface RawReview {
  id: number | string;
  build_id: number | string;
  reviewer_id: number | string | null;
  reviewer_email: string;
  reviewer_display_name: string | null;
  reviewer_role: string;
  verdict: ReviewVerdict;
  comment: string | null;
  created_at: number | string;
  carried_from_build_id: number | string | null;
  carried_reason: string | null;
}

interface RawState {
  build_id: number | string;
  state: GateState | 'none';
  checklist: string;
  file_sha256: string | null;
  unpublished: number | string;
  evaluated_at: number | string;
  version: number | string;
}

const REVIEW_COLUMNS = [
  'id',
  'build_id',
  'reviewer_id',
  'reviewer_email',
  'reviewer_display_name',
  'reviewer_role',
  'verdict',
  'comment',
  'created_at',
  'carried_from_build_id',
  'carried_reason',
] as const;
/** What a member's later review overwrites on a row another writer took first (all but the key). */
const REPLACED_COLUMNS = REVIEW_COLUMNS.filter((c) => c !== 'id' && c !== 'build_id' && c !== 'reviewer_id');
const STATE_COLUMNS = ['build_id', 'state', 'checklist', 'file_sha256', 'unpublished', 'evaluated_at', 'version'] as const;

/** build_reviews, release_gate_policies and release_gate_states (the release gate module owns them). */
@Injectable()
export class ReleaseGateRepository {
  private readonly sql: QueryBuilder;
  private readonly storedPolicies = new ReadCache(() => this.readPolicies());

  constructor(
    private readonly db: SqlExecutor,
    private readonly transactions: TransactionRunner,
  ) {
    this.sql = QueryBuilder.for(db.dialect);
  }

  /** A build's current reviews, oldest first. */
  async reviewsOf(buildId: number, tx: Sql = this.db): Promise<ReviewRow[]> {
    const statement = this.sql.prepare('gate.reviewsOf', (v: { buildId: number }) =>
      this.sql.db.selectFrom('build_reviews').select(REVIEW_COLUMNS).where('build_id', '=', v.buildId).orderBy('created_at').orderBy('id'),
    );
    return (await statement.run<RawReview>(tx, { buildId })).map(toReview);
  }

  /** The member's review replaces their earlier one of the build (one current review per member), in one transaction. */
  recordReview(review: NewReview): Promise<ReviewRow> {
    return this.transactions.run(async (tx) => {
      if (review.reviewerId !== null) {
        const remove = this.sql.prepare('gate.removeReview', (v: { buildId: number; reviewerId: number }) =>
          this.sql.db.deleteFrom('build_reviews').where('build_id', '=', v.buildId).where('reviewer_id', '=', v.reviewerId),
        );
        await remove.run(tx, { buildId: review.buildId, reviewerId: review.reviewerId });
      }
      await this.insertReview(review, tx, 'replace');
      const [row] = (await this.reviewsOf(review.buildId, tx)).filter((r) => r.reviewerId === review.reviewerId).slice(-1);
      return row;
    });
  }

  /** Copies `from`'s reviews to `to` (a rebuild), marked carried with `reason`; reviewers who already reviewed `to` keep theirs. */
  carryReviews(from: number, to: number, reason: string): Promise<number> {
    return this.transactions.run(async (tx) => {
      const present = new Set((await this.reviewsOf(to, tx)).map((r) => r.reviewerId));
      let carried = 0;
      for (const review of await this.reviewsOf(from, tx)) {
        if (review.reviewerId === null || present.has(review.reviewerId)) continue;
        // A member's own review written since `present` was read (another connection) wins: nothing is carried over it.
        if (await this.insertReview({ ...review, buildId: to, carriedFromBuildId: review.carriedFromBuildId ?? from, carriedReason: reason }, tx, 'keep')) carried++;
      }
      return carried;
    });
  }

  /**
   * Inserts a review; whether a row was written. On the unique (build, member) key a concurrent
   * writer may have taken since this transaction looked: `replace` (a member's own review, the
   * latest wins) overwrites that row, `keep` (a carried review) leaves it.
   */
  private async insertReview(review: NewReview, tx: Sql, onTaken: 'replace' | 'keep'): Promise<boolean> {
    const insert = this.sql.prepare(`gate.insertReview.${onTaken}`, (v: Record<string, unknown>) =>
      this.sql.db
        .insertInto('build_reviews')
        .values({
          build_id: v.build_id as number,
          reviewer_id: v.reviewer_id as number,
          reviewer_email: v.reviewer_email as string,
          reviewer_display_name: v.reviewer_display_name as string,
          reviewer_role: v.reviewer_role as string,
          verdict: v.verdict as string,
          comment: v.comment as string,
          created_at: v.created_at as number,
          carried_from_build_id: v.carried_from_build_id as number,
          carried_reason: v.carried_reason as string,
        })
        .onConflict((oc) => {
          const taken = oc.columns(['build_id', 'reviewer_id']);
          if (onTaken === 'keep') return taken.doNothing();
          return taken.doUpdateSet((eb) => Object.fromEntries(REPLACED_COLUMNS.map((c) => [c, eb.ref(`excluded.${c}`)])));
        })
        .returning('id'),
    );
    const written = await insert.run<{ id: number }>(tx, {
      build_id: review.buildId,
      reviewer_id: review.reviewerId,
      reviewer_email: review.reviewerEmail,
      reviewer_display_name: review.reviewerDisplayName,
      reviewer_role: review.reviewerRole,
      verdict: review.verdict,
      comment: review.comment,
      created_at: review.createdAt.getTime(),
      carried_from_build_id: review.carriedFromBuildId,
      carried_reason: review.carriedReason,
    });
    return written.length > 0;
  }

  /** Every policy set in the dashboard: scope → JSON (shared: not to be changed). Read once until a policy changes. */
  policies(): Promise<ReadonlyMap<string, { policy: string; updatedAt: Date }>> {
    return this.storedPolicies.get();
  }

  private async readPolicies(): Promise<ReadonlyMap<string, { policy: string; updatedAt: Date }>> {
    const statement = this.sql.prepare('gate.policies', () => this.sql.db.selectFrom('release_gate_policies').select(['scope', 'policy', 'updated_at']));
    const rows = await statement.run<{ scope: string; policy: string; updated_at: number | string }>(this.db, {});
    return new Map(rows.map((r) => [r.scope, { policy: r.policy, updatedAt: new Date(Number(r.updated_at)) }]));
  }

  /** A policy was saved or removed, here or on another instance. */
  @OnEventOnEveryInstance(GatePolicyChangedEvent.eventName)
  policiesChanged(): void {
    this.storedPolicies.clear();
  }

  async savePolicy(scope: string, policy: string, at: Date): Promise<void> {
    const statement = this.sql.prepare('gate.savePolicy', (v: { scope: string; policy: string; at: number }) =>
      this.sql.db
        .insertInto('release_gate_policies')
        .values({ scope: v.scope, policy: v.policy, updated_at: v.at })
        .onConflict((oc) => oc.column('scope').doUpdateSet((eb) => ({ policy: eb.ref('excluded.policy'), updated_at: eb.ref('excluded.updated_at') }))),
    );
    await statement.run(this.db, { scope, policy, at: at.getTime() });
    this.storedPolicies.clear();
  }

  async removePolicy(scope: string): Promise<void> {
    const statement = this.sql.prepare('gate.removePolicy', (v: { scope: string }) => this.sql.db.deleteFrom('release_gate_policies').where('scope', '=', v.scope));
    await statement.run(this.db, { scope });
    this.storedPolicies.clear();
  }

  async state(buildId: number): Promise<StateRow | null> {
    const [row] = await this.states([buildId]);
    return row ?? null;
  }

  async states(buildIds: number[]): Promise<StateRow[]> {
    if (!buildIds.length) return [];
    const statement = this.sql.prepare(`gate.states.${buildIds.length}`, (v: Record<number, number>) =>
      this.sql.db
        .selectFrom('release_gate_states')
        .select(STATE_COLUMNS)
        .where('build_id', 'in', buildIds.map((_, i) => v[i])),
    );
    return (await statement.run<RawState>(this.db, { ...buildIds })).map(toState);
  }

  /** Writes a changed gate, marked unpublished until the change has been handed on, one version past the stored one. */
  async saveState(buildId: number, state: GateState | 'none', checklist: string, at: Date): Promise<void> {
    const statement = this.sql.prepare('gate.saveState', (v: { buildId: number; state: string; checklist: string; at: number; one: number; noSha: null }) =>
      this.sql.db
        .insertInto('release_gate_states')
        .values({ build_id: v.buildId, state: v.state, checklist: v.checklist, file_sha256: v.noSha, unpublished: v.one, evaluated_at: v.at, version: v.one })
        .onConflict((oc) =>
          oc.column('build_id').doUpdateSet((eb) => ({
            state: eb.ref('excluded.state'),
            checklist: eb.ref('excluded.checklist'),
            unpublished: eb.ref('excluded.unpublished'),
            evaluated_at: eb.ref('excluded.evaluated_at'),
            version: eb(eb.ref('release_gate_states.version'), '+', eb.ref('excluded.version')),
          })),
        ),
    );
    await statement.run(this.db, { buildId, state, checklist, at: at.getTime(), one: 1, noSha: null });
  }

  /** Keeps the file's digest (a row is made for it when the gate was never evaluated). */
  async saveSha256(buildId: number, sha256: string, at: Date): Promise<void> {
    const statement = this.sql.prepare('gate.saveSha', (v: { buildId: number; sha: string; at: number; none: string; empty: string; zero: number }) =>
      this.sql.db
        .insertInto('release_gate_states')
        .values({ build_id: v.buildId, state: v.none, checklist: v.empty, file_sha256: v.sha, unpublished: v.zero, evaluated_at: v.at })
        .onConflict((oc) => oc.column('build_id').doUpdateSet((eb) => ({ file_sha256: eb.ref('excluded.file_sha256') }))),
    );
    await statement.run(this.db, { buildId, sha: sha256, at: at.getTime(), none: 'none', empty: '', zero: 0 });
  }

  /** The change evaluated at `at` has been handed on (a newer evaluation keeps its own mark). */
  async markPublished(buildId: number, at: Date): Promise<void> {
    const statement = this.sql.prepare('gate.published', (v: { buildId: number; at: number; zero: number }) =>
      this.sql.db.updateTable('release_gate_states').set({ unpublished: v.zero }).where('build_id', '=', v.buildId).where('evaluated_at', '=', v.at),
    );
    await statement.run(this.db, { buildId, at: at.getTime(), zero: 0 });
  }

  /** Builds whose last gate change was not handed on (a relay stopped in between). */
  async unpublished(limit: number): Promise<number[]> {
    const statement = this.sql.prepare('gate.unpublished', (v: { one: number; limit: number }) =>
      this.sql.db.selectFrom('release_gate_states').select('build_id').where('unpublished', '=', v.one).orderBy('build_id').limit(v.limit),
    );
    return (await statement.run<{ build_id: number | string }>(this.db, { one: 1, limit })).map((r) => Number(r.build_id));
  }

  /** The newest builds whose gate is in `state`, newest first (the inbox's filter). */
  async buildsInState(state: GateState, limit: number): Promise<number[]> {
    const statement = this.sql.prepare('gate.inState', (v: { state: string; limit: number }) =>
      this.sql.db.selectFrom('release_gate_states').select('build_id').where('state', '=', v.state).orderBy('build_id', 'desc').limit(v.limit),
    );
    return (await statement.run<{ build_id: number | string }>(this.db, { state, limit })).map((r) => Number(r.build_id));
  }
}

function toReview(r: RawReview): ReviewRow {
  return {
    id: Number(r.id),
    buildId: Number(r.build_id),
    reviewerId: r.reviewer_id === null ? null : Number(r.reviewer_id),
    reviewerEmail: r.reviewer_email,
    reviewerDisplayName: r.reviewer_display_name,
    reviewerRole: r.reviewer_role,
    verdict: r.verdict,
    comment: r.comment,
    createdAt: new Date(Number(r.created_at)),
    carriedFromBuildId: r.carried_from_build_id === null ? null : Number(r.carried_from_build_id),
    carriedReason: r.carried_reason,
  };
}

function toState(r: RawState): StateRow {
  return {
    buildId: Number(r.build_id),
    state: r.state,
    checklist: r.checklist,
    fileSha256: r.file_sha256,
    unpublished: Number(r.unpublished) === 1,
    evaluatedAt: new Date(Number(r.evaluated_at)),
    version: Number(r.version),
  };
}

import { Injectable } from '@nestjs/common';
import type { SignInMethod } from '../common/auth/sign-in-method';
import { QueryBuilder } from '../database/query-builder/query-builder';
import { epochDate } from '../users/joined-user';
import { TwoFactorChallengeEntity, TwoFactorCredentialEntity, TwoFactorRequirement } from './two-factor.entities';
import { SqlExecutor } from '../database/sql-executor';
import type { Sql } from '../database/sql';

type Nullable<T> = T | null;

interface CredentialRow {
  user_id: number | string;
  secret: string;
  created_at: number | string;
  enabled_at: Nullable<number | string>;
  last_used_step: Nullable<number | string>;
}

interface ChallengeRow {
  id: number | string;
  token_hash: string;
  user_id: number | string;
  expires_at: number | string;
  attempts: number | string;
  sign_in_method: SignInMethod;
}

const optionalDate = (value: Nullable<number | string>) => (value == null ? null : epochDate(value));

/**
 * The two-factor tables (credentials, recovery codes, pending sign-ins, the policy row). A
 * statement without `tx` runs on the data source's, as a TypeORM repository's did; with one,
 * in that transaction.
 */
@Injectable()
export class TwoFactorRepository {
  private readonly sql: QueryBuilder;

  constructor(private readonly db: SqlExecutor) {
    this.sql = QueryBuilder.for(db.dialect);
  }

  async credentialOf(userId: number, on: Sql = this.db): Promise<TwoFactorCredentialEntity | null> {
    const statement = this.sql.prepare('twoFactor.credential', (v: { userId: number }) =>
      this.sql.db.selectFrom('two_factor_credentials').select(['user_id', 'secret', 'created_at', 'enabled_at', 'last_used_step']).where('user_id', '=', v.userId),
    );
    const [row] = await statement.run<CredentialRow>(on, { userId });
    if (!row) return null;
    return Object.assign(new TwoFactorCredentialEntity(), {
      userId: Number(row.user_id),
      secret: row.secret,
      createdAt: epochDate(row.created_at),
      enabledAt: optionalDate(row.enabled_at),
      lastUsedStep: row.last_used_step == null ? null : Number(row.last_used_step),
    });
  }

  /** Stores the member's new, unconfirmed secret, replacing any they had. */
  async putUnconfirmedCredential(userId: number, secret: string, createdAt: Date): Promise<void> {
    const statement = this.sql.prepare('twoFactor.putCredential', (v: { userId: number; secret: string; createdAt: number; none: null }) =>
      this.sql.db
        .insertInto('two_factor_credentials')
        .values({ user_id: v.userId, secret: v.secret, created_at: v.createdAt, enabled_at: v.none, last_used_step: v.none })
        .onConflict((conflict) =>
          conflict.column('user_id').doUpdateSet({ secret: v.secret, created_at: v.createdAt, enabled_at: v.none, last_used_step: v.none }),
        ),
    );
    await statement.run(this.db, { userId, secret, createdAt: createdAt.getTime(), none: null });
  }

  async enableCredential(userId: number, enabledAt: Date, step: number, tx: Sql): Promise<void> {
    const statement = this.sql.prepare('twoFactor.enable', (v: { userId: number; enabledAt: number; step: number }) =>
      this.sql.db.updateTable('two_factor_credentials').set({ enabled_at: v.enabledAt, last_used_step: v.step }).where('user_id', '=', v.userId),
    );
    await statement.run(tx, { userId, enabledAt: enabledAt.getTime(), step });
  }

  /** Removes the member's credential; false when there was none. */
  async deleteCredential(userId: number, tx: Sql): Promise<boolean> {
    const statement = this.sql.prepare('twoFactor.deleteCredential', (v: { userId: number }) =>
      this.sql.db.deleteFrom('two_factor_credentials').where('user_id', '=', v.userId).returning('user_id'),
    );
    return (await statement.run(tx, { userId })).length > 0;
  }

  /** Records `step` as the last code used unless that step (or a later one) was used already: true when this call claimed it. */
  async claimStep(userId: number, step: number): Promise<boolean> {
    const statement = this.sql.prepare('twoFactor.claimStep', (v: { userId: number; step: number }) =>
      this.sql.db
        .updateTable('two_factor_credentials')
        .set({ last_used_step: v.step })
        .where('user_id', '=', v.userId)
        .where((eb) => eb.or([eb('last_used_step', 'is', null), eb('last_used_step', '<', v.step)]))
        .returning('user_id'),
    );
    return (await statement.run(this.db, { userId, step })).length > 0;
  }

  async unusedCodeCount(userId: number): Promise<number> {
    const statement = this.sql.prepare('twoFactor.unusedCodes', (v: { userId: number }) =>
      this.sql.db
        .selectFrom('two_factor_recovery_codes')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('user_id', '=', v.userId)
        .where('used_at', 'is', null),
    );
    const [row] = await statement.run<{ n: number | string }>(this.db, { userId });
    return Number(row.n);
  }

  async replaceCodes(userId: number, codeHashes: string[], tx: Sql): Promise<void> {
    await this.deleteCodes(userId, tx);
    if (!codeHashes.length) return;
    const statement = this.sql.prepare(`twoFactor.insertCodes ${codeHashes.length}`, (v: Record<string, never>) =>
      this.sql.db.insertInto('two_factor_recovery_codes').values(codeHashes.map((_, i) => ({ user_id: v.userId, code_hash: v[`code${i}`], used_at: v.none }))),
    );
    await statement.run(tx, { userId, none: null, ...Object.fromEntries(codeHashes.map((hash, i) => [`code${i}`, hash])) } as never);
  }

  async deleteCodes(userId: number, tx: Sql): Promise<void> {
    const statement = this.sql.prepare('twoFactor.deleteCodes', (v: { userId: number }) => this.sql.db.deleteFrom('two_factor_recovery_codes').where('user_id', '=', v.userId));
    await statement.run(tx, { userId });
  }

  /** Marks the member's unused code with this hash used: true when this call used it (the conditional update decides a race). */
  async useCode(userId: number, codeHash: string, at: Date): Promise<boolean> {
    const find = this.sql.prepare('twoFactor.findCode', (v: { userId: number; codeHash: string }) =>
      this.sql.db
        .selectFrom('two_factor_recovery_codes')
        .select('id')
        .where('user_id', '=', v.userId)
        .where('code_hash', '=', v.codeHash)
        .where('used_at', 'is', null),
    );
    const [found] = await find.run<{ id: number | string }>(this.db, { userId, codeHash });
    if (!found) return false;
    const use = this.sql.prepare('twoFactor.useCode', (v: { id: number; at: number }) =>
      this.sql.db.updateTable('two_factor_recovery_codes').set({ used_at: v.at }).where('id', '=', v.id).where('used_at', 'is', null).returning('id'),
    );
    return (await use.run(this.db, { id: Number(found.id), at: at.getTime() })).length > 0;
  }

  async insertChallenge(challenge: Omit<TwoFactorChallengeEntity, 'id'>): Promise<void> {
    const statement = this.sql.prepare(
      'twoFactor.insertChallenge',
      (v: { tokenHash: string; userId: number; expiresAt: number; attempts: number; signInMethod: SignInMethod }) =>
        this.sql.db.insertInto('two_factor_challenges').values({
          token_hash: v.tokenHash,
          user_id: v.userId,
          expires_at: v.expiresAt,
          attempts: v.attempts,
          sign_in_method: v.signInMethod,
        }),
    );
    await statement.run(this.db, { ...challenge, expiresAt: challenge.expiresAt.getTime() });
  }

  async challengeByHash(tokenHash: string): Promise<TwoFactorChallengeEntity | null> {
    const statement = this.sql.prepare('twoFactor.challenge', (v: { tokenHash: string }) =>
      this.sql.db
        .selectFrom('two_factor_challenges')
        .select(['id', 'token_hash', 'user_id', 'expires_at', 'attempts', 'sign_in_method'])
        .where('token_hash', '=', v.tokenHash),
    );
    const [row] = await statement.run<ChallengeRow>(this.db, { tokenHash });
    if (!row) return null;
    return Object.assign(new TwoFactorChallengeEntity(), {
      id: Number(row.id),
      tokenHash: row.token_hash,
      userId: Number(row.user_id),
      expiresAt: epochDate(row.expires_at),
      attempts: Number(row.attempts),
      signInMethod: row.sign_in_method,
    });
  }

  /** Counts an attempt on the challenge unless another request counted one since `attempts` was read: true when this call counted it. */
  async countAttempt(id: number, attempts: number): Promise<boolean> {
    const statement = this.sql.prepare('twoFactor.countAttempt', (v: { id: number; attempts: number; next: number }) =>
      this.sql.db.updateTable('two_factor_challenges').set({ attempts: v.next }).where('id', '=', v.id).where('attempts', '=', v.attempts).returning('id'),
    );
    return (await statement.run(this.db, { id, attempts, next: attempts + 1 })).length > 0;
  }

  /** Deletes challenges by id, token hash, owner, or those expired before a time (exactly one criterion). */
  async deleteChallenges(where: { id: number } | { tokenHash: string } | { userId: number } | { expiredBefore: Date }): Promise<void> {
    const [criterion, column, value] =
      'id' in where
        ? (['id', 'id', where.id] as const)
        : 'tokenHash' in where
          ? (['hash', 'token_hash', where.tokenHash] as const)
          : 'userId' in where
            ? (['user', 'user_id', where.userId] as const)
            : (['expired', 'expires_at', where.expiredBefore.getTime()] as const);
    const statement = this.sql.prepare(`twoFactor.deleteChallenges ${criterion}`, (v: { value: never }) =>
      this.sql.db.deleteFrom('two_factor_challenges').where(column, criterion === 'expired' ? '<' : '=', v.value),
    );
    await statement.run(this.db, { value: value as never });
  }

  /** The policy row's requirement; null when the row is missing. */
  async requirement(): Promise<TwoFactorRequirement | null> {
    const statement = this.sql.prepare('twoFactor.policy', (v: { id: number }) => this.sql.db.selectFrom('two_factor_policy').select('required_for').where('id', '=', v.id));
    const [row] = await statement.run<{ required_for: TwoFactorRequirement }>(this.db, { id: 1 });
    return row?.required_for ?? null;
  }

  async setRequirement(requiredFor: TwoFactorRequirement): Promise<void> {
    const statement = this.sql.prepare('twoFactor.setPolicy', (v: { id: number; requiredFor: TwoFactorRequirement }) =>
      this.sql.db.updateTable('two_factor_policy').set({ required_for: v.requiredFor }).where('id', '=', v.id),
    );
    await statement.run(this.db, { id: 1, requiredFor });
  }
}

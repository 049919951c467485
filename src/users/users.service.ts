import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { Clock } from '../common/clock';
import type { Role } from '../common/auth/role';
import type { Sql } from '../database/sql';
import { TransactionRunner } from '../database/transaction-runner';
import { MemberChangedEvent } from './events/member-changed.event';
import { PasswordHasher } from './password-hasher';
import { UserEntity } from './user.entity';
import { UsersRepository } from './users.repository';
import { ClusterEventsBridge } from '../cluster/cluster-events.bridge';

/** Longest display name kept (the column's size). */
export const DISPLAY_NAME_MAX = 200;

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Member accounts: the one place other modules read or create users. */
@Injectable()
export class UsersService {
  constructor(
    private readonly users: UsersRepository,
    private readonly hasher: PasswordHasher,
    private readonly clock: Clock,
    private readonly transactions: TransactionRunner,
    private readonly cluster: ClusterEventsBridge,
  ) {}

  count(): Promise<number> {
    return this.users.count();
  }

  findById(id: number): Promise<UserEntity | null> {
    return this.users.findById(id);
  }

  findByEmail(email: string): Promise<UserEntity | null> {
    return this.users.findByEmail(normalizeEmail(email));
  }

  /** In id order; looked up IN_LIST_MAX ids per statement, so any number of ids fits the database's limits. */
  async findManyByIds(ids: number[]): Promise<UserEntity[]> {
    return (await this.users.findManyByIds([...new Set(ids)])).sort((a, b) => a.id - b.id);
  }

  list(): Promise<UserEntity[]> {
    return this.users.list();
  }

  /**
   * Admins who can still sign in (break-glass ones only, when asked). The guardrails
   * (MemberGuardrails) count these (issue 36): a deactivated Admin cannot sign in, so counting them
   * would let the team lock itself out.
   */
  countActiveAdmins(options: { breakGlass?: true } = {}): Promise<number> {
    return this.users.countActiveAdmins(options.breakGlass === true);
  }

  async create(input: { email: string; password: string; role: Role; displayName?: string | null; breakGlass?: boolean }): Promise<UserEntity> {
    const { password, ...member } = input;
    return this.insertHashed({ ...member, passwordHash: await this.hasher.hash(password) });
  }

  /** Inserts a member whose password is already hashed; joins the caller's open transaction (invitation accept). */
  insertHashed(input: {
    email: string;
    passwordHash: string;
    role: Role;
    displayName?: string | null;
    breakGlass?: boolean;
  }): Promise<UserEntity> {
    return this.transactions.run((tx) =>
      this.users.insert(
        {
          email: normalizeEmail(input.email),
          passwordHash: input.passwordHash,
          displayName: input.displayName?.trim() || null,
          role: input.role,
          avatarPath: null,
          breakGlass: input.breakGlass ?? false,
          active: true,
          scimExternalId: null,
          createdAt: this.clock.now(),
        },
        tx,
      ),
    );
  }

  /** Every stored avatar path, for the sweep of unreferenced files. */
  avatarPaths(): Promise<string[]> {
    return this.users.avatarPaths();
  }

  async setPassword(userId: number, password: string): Promise<void> {
    await this.setPasswordHash(userId, await this.hasher.hash(password));
  }

  /** Stores a hash made with PasswordHasher beforehand (so the slow part runs before a claim). */
  async setPasswordHash(userId: number, passwordHash: string): Promise<void> {
    await this.users.update([userId], { passwordHash });
    await this.changed([userId]);
  }

  async update(
    userId: number,
    changes: Partial<Pick<UserEntity, 'displayName' | 'role' | 'avatarPath' | 'email' | 'active' | 'scimExternalId' | 'breakGlass'>>,
  ): Promise<void> {
    await this.users.update([userId], changes);
    await this.changed([userId]);
  }

  /** Gives these members one role, IN_LIST_MAX per statement, in one transaction (a SCIM group's members). */
  async setRole(userIds: number[], role: Role): Promise<void> {
    await this.transactions.run((tx) => this.users.update(userIds, { role }, tx));
    await this.changed(userIds);
  }

  /**
   * Applies `changes` and returns the avatar path the member had before, read in the same
   * transaction: two replacements at once each get the other's file to delete, never the same one.
   * Null when there is no such member.
   */
  updateReturningAvatar(
    userId: number,
    changes: Partial<Pick<UserEntity, 'displayName' | 'avatarPath'>>,
  ): Promise<{ previousAvatar: string | null } | null> {
    return this.transactions.run(async (tx) => {
      const user = await this.users.avatarForUpdate(userId, tx);
      if (!user) return null;
      await this.users.update([userId], changes, tx);
      await this.changed([userId]);
      return { previousAvatar: user.avatarPath };
    });
  }

  /**
   * A member who signs in only through an identity provider: their password hash is of 32 random
   * bytes nobody knows, so password sign-in can never match it (and the column stays non-null).
   */
  async createWithoutPassword(input: { email: string; role: Role; displayName?: string | null }): Promise<UserEntity> {
    return this.create({ ...input, password: randomBytes(32).toString('base64') });
  }

  async delete(userId: number): Promise<void> {
    await this.users.delete(userId);
    await this.changed([userId]);
  }

  /** 503 with Retry-After when a password check now would queue past a second (PasswordHasher.admit). */
  admitPasswordCheck(): void {
    this.hasher.admit();
  }

  /** Checks a password; an unknown e-mail still costs one bcrypt comparison (no timing oracle). */
  async verifyCredentials(email: string, password: string): Promise<UserEntity | null> {
    return (await this.verifyCredentialsWith(email, password, async () => undefined))?.user ?? null;
  }

  /**
   * verifyCredentials, with `alongside` run on the member's row while the password is checked and
   * its answer returned with the member: a sign-in's next lookup (two-factor) off its critical path.
   * The member's row and `alongside`'s statements (given `on`) share one connection: on PostgreSQL
   * under load each checkout of a pooled connection waits its turn, and a sign-in made three.
   */
  async verifyCredentialsWith<T>(email: string, password: string, alongside: (user: UserEntity, on: Sql) => Promise<T>): Promise<{ user: UserEntity; alongside: T } | null> {
    let matches: Promise<boolean> | undefined;
    const found = await this.transactions.onOneConnection(async (on) => {
      const user = await this.users.findByEmail(normalizeEmail(email), on);
      // A deactivated member (SCIM) is refused like an unknown one, at the same cost (below).
      if (!user || !user.active) return null;
      matches = this.hasher.verify(password, user.passwordHash);
      // Awaited below; handled here too, so a failing `alongside` leaves no rejection unheard.
      matches.catch(() => undefined);
      return { user, alongside: await alongside(user, on) };
    });
    if (!found) return this.hasher.verifyDecoy(password).then(() => null);
    return (await matches!) ? found : null;
  }

  /** Announced once the change is committed (the caller's transaction, if any, included). */
  private changed(userIds: number[]): Promise<void> {
    return this.transactions.afterCommit(() => this.cluster.announce(MemberChangedEvent.eventName, new MemberChangedEvent(userIds)));
  }
}

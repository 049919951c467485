import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { InjectRepository } from '@nestjs/typeorm';
import { In, IsNull, Not, Repository } from 'typeorm';
import { Clock } from '../common/clock';
import type { Role } from '../common/auth/role';
import { inLists } from '../database/in-lists';
import { forUpdate } from '../database/row-lock';
import { TransactionRunner } from '../database/transaction-runner';
import { PasswordHasher } from './password-hasher';
import { UserEntity } from './user.entity';

/** Longest display name kept (the column's size). */
export const DISPLAY_NAME_MAX = 200;

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Member accounts: the one place other modules read or create users. */
@Injectable()
export class UsersService {
  constructor(
    @InjectRepository(UserEntity) private readonly users: Repository<UserEntity>,
    private readonly hasher: PasswordHasher,
    private readonly clock: Clock,
    private readonly transactions: TransactionRunner,
  ) {}

  count(): Promise<number> {
    return this.users.count();
  }

  findById(id: number): Promise<UserEntity | null> {
    return this.users.findOneBy({ id });
  }

  findByEmail(email: string): Promise<UserEntity | null> {
    return this.users.findOneBy({ email: normalizeEmail(email) });
  }

  /** In id order; looked up IN_LIST_MAX ids per statement, so any number of ids fits the database's limits. */
  async findManyByIds(ids: number[]): Promise<UserEntity[]> {
    const found: UserEntity[] = [];
    for (const list of inLists([...new Set(ids)])) found.push(...(await this.users.findBy({ id: In(list) })));
    return found.sort((a, b) => a.id - b.id);
  }

  list(): Promise<UserEntity[]> {
    return this.users.find({ order: { id: 'ASC' } });
  }

  /**
   * Admins who can still sign in (break-glass ones only, when asked). The guardrails
   * (MemberGuardrails) count these (issue 36): a deactivated Admin cannot sign in, so counting them
   * would let the team lock itself out.
   */
  countActiveAdmins(options: { breakGlass?: true } = {}): Promise<number> {
    return this.users.countBy({ role: 'Admin', active: true, ...(options.breakGlass ? { breakGlass: true } : {}) });
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
    return this.transactions.run((manager) => {
      const repository = manager.getRepository(UserEntity);
      return repository.save(
        repository.create({
          email: normalizeEmail(input.email),
          passwordHash: input.passwordHash,
          displayName: input.displayName?.trim() || null,
          role: input.role,
          avatarPath: null,
          breakGlass: input.breakGlass ?? false,
          active: true,
          scimExternalId: null,
          createdAt: this.clock.now(),
        }),
      );
    });
  }

  /** Every stored avatar path, for the sweep of unreferenced files. */
  async avatarPaths(): Promise<string[]> {
    const rows = await this.users.find({ where: { avatarPath: Not(IsNull()) }, select: { avatarPath: true } });
    return rows.map((r) => r.avatarPath!);
  }

  async setPassword(userId: number, password: string): Promise<void> {
    await this.setPasswordHash(userId, await this.hasher.hash(password));
  }

  /** Stores a hash made with PasswordHasher beforehand (so the slow part runs before a claim). */
  async setPasswordHash(userId: number, passwordHash: string): Promise<void> {
    await this.users.update({ id: userId }, { passwordHash });
  }

  async update(
    userId: number,
    changes: Partial<Pick<UserEntity, 'displayName' | 'role' | 'avatarPath' | 'email' | 'active' | 'scimExternalId' | 'breakGlass'>>,
  ): Promise<void> {
    await this.users.update({ id: userId }, changes);
  }

  /** Gives these members one role, IN_LIST_MAX per statement, in one transaction (a SCIM group's members). */
  async setRole(userIds: number[], role: Role): Promise<void> {
    await this.transactions.run(async (manager) => {
      for (const list of inLists(userIds)) await manager.getRepository(UserEntity).update({ id: In(list) }, { role });
    });
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
    return this.transactions.run(async (manager) => {
      const repository = manager.getRepository(UserEntity);
      const user = await repository.findOne({ where: { id: userId }, select: { id: true, avatarPath: true }, ...forUpdate(manager) });
      if (!user) return null;
      await repository.update({ id: userId }, changes);
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
    await this.users.delete({ id: userId });
  }

  /** Checks a password; an unknown e-mail still costs one bcrypt comparison (no timing oracle). */
  async verifyCredentials(email: string, password: string): Promise<UserEntity | null> {
    const user = await this.findByEmail(email);
    // A deactivated member (SCIM) is refused like an unknown one, at the same cost.
    if (!user || !user.active) return this.hasher.verifyDecoy(password).then(() => null);
    return (await this.hasher.verify(password, user.passwordHash)) ? user : null;
  }
}

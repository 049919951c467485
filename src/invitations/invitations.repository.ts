import { Injectable } from '@nestjs/common';
import type { Role } from '../common/auth/role';
import { QueryBuilder } from '../database/query-builder/query-builder';
import { epochDate } from '../users/joined-user';
import { InvitationEntity } from './invitation.entity';
import { SqlExecutor } from '../database/sql-executor';
import type { Sql } from '../database/sql';

const COLUMNS = ['id', 'token_hash', 'email', 'role', 'invited_by', 'accepted_user_id', 'created_at', 'expires_at', 'accepted_at'] as const;

interface InvitationRow {
  id: number | string;
  token_hash: string;
  email: string | null;
  role: Role;
  invited_by: number | string | null;
  accepted_user_id: number | string | null;
  created_at: number | string;
  expires_at: number | string;
  accepted_at: number | string | null;
}

const optionalId = (value: number | string | null) => (value == null ? null : Number(value));

function toInvitation(row: InvitationRow): InvitationEntity {
  return Object.assign(new InvitationEntity(), {
    id: Number(row.id),
    tokenHash: row.token_hash,
    email: row.email,
    role: row.role,
    invitedBy: optionalId(row.invited_by),
    acceptedUserId: optionalId(row.accepted_user_id),
    createdAt: epochDate(row.created_at),
    expiresAt: epochDate(row.expires_at),
    acceptedAt: row.accepted_at == null ? null : epochDate(row.accepted_at),
  });
}

/** The invitations table (the invitations module's). Without `tx`, on the data source's, as a TypeORM repository's did. */
@Injectable()
export class InvitationsRepository {
  private readonly sql: QueryBuilder;

  constructor(private readonly db: SqlExecutor) {
    this.sql = QueryBuilder.for(db.dialect);
  }

  async insert(invitation: Omit<InvitationEntity, 'id'>): Promise<InvitationEntity> {
    const statement = this.sql.prepare('invitations.insert', (v: Record<Exclude<(typeof COLUMNS)[number], 'id'>, never>) =>
      this.sql.db
        .insertInto('invitations')
        .values({
          token_hash: v.token_hash,
          email: v.email,
          role: v.role,
          invited_by: v.invited_by,
          accepted_user_id: v.accepted_user_id,
          created_at: v.created_at,
          expires_at: v.expires_at,
          accepted_at: v.accepted_at,
        })
        .returning(COLUMNS),
    );
    const [row] = await statement.run<InvitationRow>(this.db, {
      token_hash: invitation.tokenHash,
      email: invitation.email,
      role: invitation.role,
      invited_by: invitation.invitedBy,
      accepted_user_id: invitation.acceptedUserId,
      created_at: invitation.createdAt.getTime(),
      expires_at: invitation.expiresAt.getTime(),
      accepted_at: invitation.acceptedAt?.getTime() ?? null,
    } as never);
    return toInvitation(row);
  }

  /** Not accepted and unexpired at `now`, newest first. */
  async listOpen(now: Date): Promise<InvitationEntity[]> {
    const statement = this.sql.prepare('invitations.open', (v: { now: number }) =>
      this.sql.db
        .selectFrom('invitations')
        .select(COLUMNS)
        .where('accepted_at', 'is', null)
        .where('expires_at', '>', v.now)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc'),
    );
    return (await statement.run<InvitationRow>(this.db, { now: now.getTime() })).map(toInvitation);
  }

  /** Deletes the invitation if it is still open at `now`: true when it was. */
  async deleteOpen(id: number, now: Date): Promise<boolean> {
    const statement = this.sql.prepare('invitations.deleteOpen', (v: { id: number; now: number }) =>
      this.sql.db.deleteFrom('invitations').where('id', '=', v.id).where('accepted_at', 'is', null).where('expires_at', '>', v.now).returning('id'),
    );
    return (await statement.run(this.db, { id, now: now.getTime() })).length > 0;
  }

  async findByHash(tokenHash: string): Promise<InvitationEntity | null> {
    const statement = this.sql.prepare('invitations.byHash', (v: { tokenHash: string }) => this.sql.db.selectFrom('invitations').select(COLUMNS).where('token_hash', '=', v.tokenHash));
    const [row] = await statement.run<InvitationRow>(this.db, { tokenHash });
    return row ? toInvitation(row) : null;
  }

  /** The invitation a member joined through, if any. */
  async acceptedBy(userId: number): Promise<InvitationEntity | null> {
    const statement = this.sql.prepare('invitations.acceptedBy', (v: { userId: number }) =>
      this.sql.db.selectFrom('invitations').select(COLUMNS).where('accepted_user_id', '=', v.userId),
    );
    const [row] = await statement.run<InvitationRow>(this.db, { userId });
    return row ? toInvitation(row) : null;
  }

  /** Marks the invitation accepted by `userId` unless it was accepted or expired meanwhile: true when this call did (in `tx`'s transaction). */
  async claim(id: number, userId: number, now: Date, tx: Sql): Promise<boolean> {
    const statement = this.sql.prepare('invitations.claim', (v: { id: number; userId: number; now: number }) =>
      this.sql.db
        .updateTable('invitations')
        .set({ accepted_at: v.now, accepted_user_id: v.userId })
        .where('id', '=', v.id)
        .where('accepted_at', 'is', null)
        .where('expires_at', '>', v.now)
        .returning('id'),
    );
    return (await statement.run(tx, { id, userId, now: now.getTime() })).length > 0;
  }

  /** Deletes invitations expired at `now` and never accepted; how many. */
  async deleteExpired(now: Date): Promise<number> {
    const statement = this.sql.prepare('invitations.deleteExpired', (v: { now: number }) =>
      this.sql.db.deleteFrom('invitations').where('accepted_at', 'is', null).where('expires_at', '<=', v.now).returning('id'),
    );
    return (await statement.run(this.db, { now: now.getTime() })).length;
  }
}

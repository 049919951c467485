import { Injectable } from '@nestjs/common';
import { inLists } from '../database/in-lists';
import { QueryBuilder } from '../database/query-builder/query-builder';
import type { SsoIdentityEntity, SsoProvider } from './sso-identity.entity';
import { SqlExecutor } from '../database/sql-executor';

/** The sso_identities table (the identity module's). Statements run on the data source's tx, as a TypeORM repository's did. */
@Injectable()
export class SsoIdentitiesRepository {
  private readonly sql: QueryBuilder;

  constructor(private readonly db: SqlExecutor) {
    this.sql = QueryBuilder.for(db.dialect);
  }

  /** The member linked to this identity at the provider, or null. */
  async memberOf(provider: SsoProvider, subject: string): Promise<number | null> {
    const statement = this.sql.prepare('ssoIdentities.memberOf', (v: { provider: SsoProvider; subject: string }) =>
      this.sql.db.selectFrom('sso_identities').select('user_id').where('provider', '=', v.provider).where('subject', '=', v.subject),
    );
    const [row] = await statement.run<{ user_id: number | string }>(this.db, { provider, subject });
    return row ? Number(row.user_id) : null;
  }

  /** Whether the member has a link at this provider. */
  async exists(userId: number, provider: SsoProvider): Promise<boolean> {
    const statement = this.sql.prepare('ssoIdentities.exists', (v: { userId: number; provider: SsoProvider }) =>
      this.sql.db.selectFrom('sso_identities').select('id').where('user_id', '=', v.userId).where('provider', '=', v.provider),
    );
    return (await statement.run(this.db, { userId, provider })).length > 0;
  }

  /** A unique violation when the identity, or a link of the member at this provider, exists already. */
  async insert(identity: Omit<SsoIdentityEntity, 'id' | 'user'>): Promise<void> {
    const statement = this.sql.prepare('ssoIdentities.insert', (v: { userId: number; provider: SsoProvider; subject: string; createdAt: number }) =>
      this.sql.db.insertInto('sso_identities').values({ user_id: v.userId, provider: v.provider, subject: v.subject, created_at: v.createdAt }),
    );
    await statement.run(this.db, { ...identity, createdAt: identity.createdAt.getTime() });
  }

  /** Which of these members have a link at the provider, IN_LIST_MAX looked up at a time. */
  async linkedAt(provider: SsoProvider, userIds: number[]): Promise<Set<number>> {
    const found = new Set<number>();
    for (const list of inLists(userIds)) {
      const statement = this.sql.prepare(`ssoIdentities.linkedAt ${list.length}`, (v: Record<string, never>) =>
        this.sql.db
          .selectFrom('sso_identities')
          .select('user_id')
          .where('provider', '=', v.provider)
          .where(
            'user_id',
            'in',
            list.map((_, i) => v[`id${i}`]),
          ),
      );
      const values = { provider, ...Object.fromEntries(list.map((id, i) => [`id${i}`, id])) } as never;
      for (const row of await statement.run<{ user_id: number | string }>(this.db, values)) found.add(Number(row.user_id));
    }
    return found;
  }
}

import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

const ONE_LINK_PER_PROVIDER = 'UQ_sso_identities_user_provider';

/**
 * Issue 36 items 4 and 5 (docs/identity.md "Links and the two-factor policy").
 *
 * `sessions.sign_in_method` (and the same on `two_factor_challenges`, for the session made after the
 * code): the two-factor policy exempts a session an identity provider signed in, not a member who
 * once signed in through one. Sessions from before this column cannot say how they were made, so
 * they count as password sessions: the strict reading; a provider's member the policy then holds at
 * enrolment signs in through the provider again.
 *
 * One link per (member, provider): where a second subject had already been linked to a member, the
 * first link (lowest id) is kept and the later ones are removed (that later subject is the takeover
 * the rule now refuses); then a unique index keeps it so across instances.
 */
export class SignInMethodAndOneLinkPerProvider1700000028300 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    for (const table of ['sessions', 'two_factor_challenges']) {
      await q.query(`ALTER TABLE ${table} ADD COLUMN sign_in_method varchar(10) NOT NULL DEFAULT 'password'`);
    }
    await q.query('DELETE FROM sso_identities WHERE id NOT IN (SELECT MIN(id) FROM sso_identities GROUP BY user_id, provider)');
    await q.createIndex('sso_identities', new TableIndex({ name: ONE_LINK_PER_PROVIDER, columnNames: ['user_id', 'provider'], isUnique: true }));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropIndex('sso_identities', ONE_LINK_PER_PROVIDER);
    await q.dropColumn('two_factor_challenges', 'sign_in_method');
    await q.dropColumn('sessions', 'sign_in_method');
  }
}

import { MigrationInterface, QueryRunner, Table, TableColumn } from 'typeorm';
import { idColumn, timestamp } from '../migration-columns';

/**
 * Single sign-on (docs/identity.md): `sso_identities` links a member to the subject an identity
 * provider knows them by (OIDC `iss` + `sub`, or an LDAP entry's DN), so a later sign-in finds them
 * even when their e-mail changed. `users.break_glass` marks members who may still sign in with a
 * password under `sso.only`; the first Admin (lowest id) is one from the start.
 */
export class SingleSignOn1700000026100 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'sso_identities',
        columns: [
          idColumn(),
          { name: 'user_id', type: 'integer' },
          { name: 'provider', type: 'varchar', length: '10' },
          { name: 'subject', type: 'varchar', length: '600' },
          timestamp('created_at'),
        ],
        foreignKeys: [{ columnNames: ['user_id'], referencedTableName: 'users', referencedColumnNames: ['id'], onDelete: 'CASCADE' }],
        indices: [{ columnNames: ['provider', 'subject'], isUnique: true }, { columnNames: ['user_id'] }],
      }),
    );
    await q.addColumn('users', new TableColumn({ name: 'break_glass', type: 'boolean', default: false }));
    await q.query(
      `UPDATE users SET break_glass = ${q.connection.options.type === 'postgres' ? 'TRUE' : '1'} ` +
        `WHERE id = (SELECT MIN(id) FROM users WHERE role = 'Admin')`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('users', 'break_glass');
    await q.dropTable('sso_identities');
  }
}

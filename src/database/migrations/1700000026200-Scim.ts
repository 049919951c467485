import { MigrationInterface, QueryRunner, Table, TableColumn } from 'typeorm';
import { idColumn, timestamp } from '../migration-columns';

/**
 * SCIM 2.0 provisioning (docs/identity.md "SCIM"): its bearer tokens (only their SHA-256), the
 * groups an identity provider pushes and their members, and on members `active` (a deactivated
 * member keeps their row and contributions but cannot sign in) and the provider's `externalId`.
 */
export class Scim1700000026200 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'scim_tokens',
        columns: [
          idColumn(),
          { name: 'name', type: 'varchar', length: '200' },
          { name: 'token_hash', type: 'varchar', length: '64', isUnique: true },
          { name: 'created_by_id', type: 'integer', isNullable: true },
          timestamp('created_at'),
          timestamp('last_used_at', true),
        ],
        foreignKeys: [{ columnNames: ['created_by_id'], referencedTableName: 'users', referencedColumnNames: ['id'], onDelete: 'SET NULL' }],
      }),
    );
    await q.createTable(
      new Table({
        name: 'scim_groups',
        columns: [
          idColumn(),
          { name: 'display_name', type: 'varchar', length: '300', isUnique: true },
          { name: 'external_id', type: 'varchar', length: '300', isNullable: true },
          timestamp('created_at'),
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'scim_group_members',
        columns: [
          { name: 'group_id', type: 'integer', isPrimary: true },
          { name: 'user_id', type: 'integer', isPrimary: true },
        ],
        foreignKeys: [
          { columnNames: ['group_id'], referencedTableName: 'scim_groups', referencedColumnNames: ['id'], onDelete: 'CASCADE' },
          { columnNames: ['user_id'], referencedTableName: 'users', referencedColumnNames: ['id'], onDelete: 'CASCADE' },
        ],
        indices: [{ columnNames: ['user_id'] }],
      }),
    );
    await q.addColumn('users', new TableColumn({ name: 'active', type: 'boolean', default: true }));
    await q.addColumn('users', new TableColumn({ name: 'scim_external_id', type: 'varchar', length: '300', isNullable: true }));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('users', 'scim_external_id');
    await q.dropColumn('users', 'active');
    await q.dropTable('scim_group_members');
    await q.dropTable('scim_groups');
    await q.dropTable('scim_tokens');
  }
}

import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { idColumn, timestamp } from '../migration-columns';

/** Invitations, password-reset links and the team's settings (one row). */
export class Team1700000002000 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'invitations',
        columns: [
          idColumn(),
          { name: 'token_hash', type: 'varchar', length: '64', isUnique: true },
          { name: 'email', type: 'varchar', length: '320', isNullable: true },
          { name: 'role', type: 'varchar', length: '20' },
          { name: 'invited_by', type: 'integer', isNullable: true },
          { name: 'accepted_user_id', type: 'integer', isNullable: true },
          timestamp('created_at'),
          timestamp('expires_at'),
          timestamp('accepted_at', true),
        ],
        foreignKeys: [
          { columnNames: ['invited_by'], referencedTableName: 'users', referencedColumnNames: ['id'], onDelete: 'SET NULL' },
          {
            columnNames: ['accepted_user_id'],
            referencedTableName: 'users',
            referencedColumnNames: ['id'],
            onDelete: 'SET NULL',
          },
        ],
        indices: [{ columnNames: ['accepted_user_id'] }],
      }),
    );
    await q.createTable(
      new Table({
        name: 'password_resets',
        columns: [
          idColumn(),
          { name: 'user_id', type: 'integer' },
          { name: 'token_hash', type: 'varchar', length: '64', isUnique: true },
          timestamp('created_at'),
          timestamp('expires_at'),
          timestamp('used_at', true),
        ],
        foreignKeys: [{ columnNames: ['user_id'], referencedTableName: 'users', referencedColumnNames: ['id'], onDelete: 'CASCADE' }],
        indices: [{ columnNames: ['user_id'] }],
      }),
    );
    await q.createTable(
      new Table({
        name: 'team_settings',
        columns: [
          { name: 'id', type: 'integer', isPrimary: true },
          { name: 'team_name', type: 'varchar', length: '200' },
          { name: 'logo_path', type: 'varchar', length: '300', isNullable: true },
        ],
      }),
    );
    // Plain SQL without parameters: the same text on SQLite and PostgreSQL.
    await q.query("INSERT INTO team_settings (id, team_name, logo_path) VALUES (1, 'My team', NULL)");
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('team_settings');
    await q.dropTable('password_resets');
    await q.dropTable('invitations');
  }
}

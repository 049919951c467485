import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { idColumn, timestamp } from '../migration-columns';

/** Members, browser sessions and personal access tokens. */
export class Foundation1700000000000 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'users',
        columns: [
          idColumn(),
          { name: 'email', type: 'varchar', length: '320', isUnique: true },
          { name: 'password_hash', type: 'varchar', length: '100' },
          { name: 'display_name', type: 'varchar', length: '200', isNullable: true },
          { name: 'role', type: 'varchar', length: '20' },
          { name: 'avatar_path', type: 'varchar', length: '300', isNullable: true },
          timestamp('created_at'),
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'sessions',
        columns: [
          idColumn(),
          { name: 'user_id', type: 'integer' },
          { name: 'token_hash', type: 'varchar', length: '64', isUnique: true },
          timestamp('created_at'),
          timestamp('expires_at'),
        ],
        foreignKeys: [{ columnNames: ['user_id'], referencedTableName: 'users', referencedColumnNames: ['id'], onDelete: 'CASCADE' }],
        indices: [{ columnNames: ['user_id'] }],
      }),
    );
    await q.createTable(
      new Table({
        name: 'personal_access_tokens',
        columns: [
          idColumn(),
          { name: 'user_id', type: 'integer' },
          { name: 'name', type: 'varchar', length: '200' },
          { name: 'scope', type: 'varchar', length: '100' },
          { name: 'token_hash', type: 'varchar', length: '64', isUnique: true },
          timestamp('created_at'),
          timestamp('last_used_at'),
          timestamp('expires_at', true),
        ],
        foreignKeys: [{ columnNames: ['user_id'], referencedTableName: 'users', referencedColumnNames: ['id'], onDelete: 'CASCADE' }],
        indices: [{ columnNames: ['user_id'] }],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('personal_access_tokens');
    await q.dropTable('sessions');
    await q.dropTable('users');
  }
}

import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { idColumn, timestamp } from '../migration-columns';

/**
 * Two-factor sign-in (docs/auth.md "Two-factor sign-in"): one TOTP credential per member (enabled
 * once confirmed with a code), single-use recovery codes as SHA-256, pending sign-ins between the
 * password and the code (the token only as its SHA-256), and the team's policy (one row).
 */
export class TwoFactor1700000018500 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    const member = { columnNames: ['user_id'], referencedTableName: 'users', referencedColumnNames: ['id'], onDelete: 'CASCADE' };
    await q.createTable(
      new Table({
        name: 'two_factor_credentials',
        columns: [
          { name: 'user_id', type: 'integer', isPrimary: true },
          { name: 'secret', type: 'varchar', length: '64' },
          timestamp('created_at'),
          timestamp('enabled_at', true),
          { name: 'last_used_step', type: 'bigint', isNullable: true },
        ],
        foreignKeys: [member],
      }),
    );
    await q.createTable(
      new Table({
        name: 'two_factor_recovery_codes',
        columns: [
          idColumn(),
          { name: 'user_id', type: 'integer' },
          { name: 'code_hash', type: 'varchar', length: '64' },
          timestamp('used_at', true),
        ],
        foreignKeys: [member],
        indices: [{ columnNames: ['user_id'] }],
      }),
    );
    await q.createTable(
      new Table({
        name: 'two_factor_challenges',
        columns: [
          idColumn(),
          { name: 'token_hash', type: 'varchar', length: '64', isUnique: true },
          { name: 'user_id', type: 'integer' },
          timestamp('expires_at'),
          { name: 'attempts', type: 'integer', default: 0 },
        ],
        foreignKeys: [member],
        indices: [{ columnNames: ['user_id'] }],
      }),
    );
    await q.createTable(
      new Table({
        name: 'two_factor_policy',
        columns: [
          { name: 'id', type: 'integer', isPrimary: true },
          { name: 'required_for', type: 'varchar', length: '16' },
        ],
      }),
    );
    await q.query("INSERT INTO two_factor_policy (id, required_for) VALUES (1, 'nobody')");
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('two_factor_policy');
    await q.dropTable('two_factor_challenges');
    await q.dropTable('two_factor_recovery_codes');
    await q.dropTable('two_factor_credentials');
  }
}

import { MigrationInterface, QueryRunner, Table, TableColumn, TableIndex } from 'typeorm';
import { idColumn, timestamp } from '../migration-columns';

/**
 * Forges added in the dashboard (issue 25, docs/integrations.md "Forges added in the dashboard"):
 * - `forges`: type, API URL, context, and the token or GitHub App key sealed with SVC_SECRETS_KEY;
 * - `forge_repositories`: the repositories each serves, unique by lower-case name, so two dashboard
 *   forges can never both claim one (the second is refused with 409);
 * - `forge_deliveries.forge_key`: which forge made an attempt (`config:<index>`, `dashboard:<id>`),
 *   for each forge's delivery log; null on attempts made before this migration.
 */
export class DashboardForges1700000025300 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'forges',
        columns: [
          idColumn(),
          { name: 'type', type: 'varchar', length: '10' },
          { name: 'url', type: 'varchar', length: '2048' },
          { name: 'context', type: 'varchar', length: '120' },
          { name: 'token_sealed', type: 'text', isNullable: true },
          { name: 'app_id', type: 'varchar', length: '20', isNullable: true },
          { name: 'installation_id', type: 'varchar', length: '20', isNullable: true },
          { name: 'private_key_sealed', type: 'text', isNullable: true },
          timestamp('created_at'),
          timestamp('updated_at'),
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'forge_repositories',
        columns: [
          { name: 'repository_key', type: 'varchar', length: '200', isPrimary: true },
          { name: 'forge_id', type: 'integer' },
          { name: 'repository', type: 'varchar', length: '200' },
        ],
        foreignKeys: [{ columnNames: ['forge_id'], referencedTableName: 'forges', referencedColumnNames: ['id'], onDelete: 'CASCADE' }],
        indices: [{ name: 'IDX_forge_repositories_forge', columnNames: ['forge_id'] }],
      }),
    );
    await q.addColumn('forge_deliveries', new TableColumn({ name: 'forge_key', type: 'varchar', length: '40', isNullable: true }));
    await q.createIndex('forge_deliveries', new TableIndex({ name: 'IDX_forge_deliveries_forge', columnNames: ['forge_key', 'id'] }));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropIndex('forge_deliveries', 'IDX_forge_deliveries_forge');
    await q.dropColumn('forge_deliveries', 'forge_key');
    await q.dropTable('forge_repositories');
    await q.dropTable('forges');
  }
}

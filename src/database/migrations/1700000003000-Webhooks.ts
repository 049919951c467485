import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { idColumn, timestamp } from '../migration-columns';

/** Webhooks registered through the API, and their delivery log. */
export class Webhooks1700000003000 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'webhooks',
        columns: [
          idColumn(),
          { name: 'url', type: 'varchar', length: '2048' },
          { name: 'secret', type: 'varchar', length: '1024', isNullable: true },
          { name: 'enabled', type: 'boolean', default: true },
          timestamp('created_at'),
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'webhook_deliveries',
        columns: [
          idColumn(),
          { name: 'webhook_id', type: 'integer' },
          { name: 'delivery_id', type: 'varchar', length: '36' },
          { name: 'event', type: 'varchar', length: '100' },
          { name: 'attempt', type: 'integer' },
          timestamp('attempted_at'),
          { name: 'status_code', type: 'integer', isNullable: true },
          { name: 'error', type: 'varchar', length: '500', isNullable: true },
          { name: 'duration_ms', type: 'integer' },
        ],
        foreignKeys: [
          { columnNames: ['webhook_id'], referencedTableName: 'webhooks', referencedColumnNames: ['id'], onDelete: 'CASCADE' },
        ],
        indices: [{ columnNames: ['webhook_id'] }],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('webhook_deliveries');
    await q.dropTable('webhooks');
  }
}

import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { idColumn, timestamp } from '../migration-columns';

/**
 * One outbox for every outgoing call besides forge statuses (issue 39 item 4, docs/integrations.md
 * "One delivery path"): e-mails to testers, Slack and Teams notices, tracker issues. A row is
 * committed with the change that causes it and sent afterwards, retried with backoff.
 */
export class Outbox1700000032000 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'outbox_messages',
        columns: [
          idColumn(),
          { name: 'kind', type: 'varchar', length: '20' },
          { name: 'destination', type: 'varchar', length: '120' },
          { name: 'payload', type: 'text' },
          { name: 'status', type: 'varchar', length: '12' },
          { name: 'attempts', type: 'integer', default: 0 },
          timestamp('next_attempt_at'),
          { name: 'last_error', type: 'varchar', length: '500', isNullable: true },
          timestamp('last_attempt_at', true),
          timestamp('created_at'),
          timestamp('delivered_at', true),
        ],
        indices: [
          { name: 'IDX_outbox_messages_due', columnNames: ['status', 'next_attempt_at'] },
          { name: 'IDX_outbox_messages_destination', columnNames: ['destination', 'id'] },
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('outbox_messages');
  }
}

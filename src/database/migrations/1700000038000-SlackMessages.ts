import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { idColumn, timestamp } from '../migration-columns';

/**
 * A build's Slack message per channel (issue 39 item 2, docs/integrations.md "Slack and Microsoft
 * Teams"): the `ts` Slack gave it, so later notices update it in place, and the outbox message that
 * last wrote it, so an older retried notice never overwrites a newer one.
 */
export class SlackMessages1700000038000 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'slack_messages',
        columns: [
          idColumn(),
          { name: 'build_id', type: 'integer' },
          { name: 'channel', type: 'varchar', length: '40' },
          { name: 'ts', type: 'varchar', length: '40' },
          { name: 'outbox_message_id', type: 'integer' },
          timestamp('updated_at'),
        ],
        uniques: [{ name: 'UQ_slack_messages_build_channel', columnNames: ['build_id', 'channel'] }],
        foreignKeys: [{ columnNames: ['build_id'], referencedTableName: 'builds', referencedColumnNames: ['id'], onDelete: 'CASCADE' }],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('slack_messages');
  }
}

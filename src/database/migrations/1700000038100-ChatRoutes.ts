import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { idColumn, timestamp } from '../migration-columns';

/**
 * Chat destinations Admins add in the dashboard (issue 39 item 2, docs/integrations.md "Slack and
 * Microsoft Teams"), beside svc.config.json's: a Slack channel, or a Teams webhook whose URL is
 * sealed with SVC_SECRETS_KEY; each for some apps and branches.
 */
export class ChatRoutes1700000038100 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'chat_routes',
        columns: [
          idColumn(),
          { name: 'kind', type: 'varchar', length: '10' },
          { name: 'target', type: 'varchar', length: '40' },
          { name: 'url_sealed', type: 'text', isNullable: true },
          { name: 'apps', type: 'text', isNullable: true },
          { name: 'branches', type: 'text', isNullable: true },
          timestamp('created_at'),
        ],
        uniques: [{ name: 'UQ_chat_routes_kind_target', columnNames: ['kind', 'target'] }],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('chat_routes');
  }
}

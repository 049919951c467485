import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * PostgreSQL only: the text columns the relay sorts on, or lowercases to search, compare bytewise
 * (COLLATE "C"), as SQLite's default BINARY collation does. Without it the database's own locale
 * decides: under en_US or ICU "B" sorts after "a" and lower() folds non-ASCII letters, so the same
 * request would answer differently on the two dialects. (ALTER … TYPE rebuilds the indexes on them.)
 * On SQLite there is nothing to do.
 */
export class PostgresByteOrder1700000005000 implements MigrationInterface {
  private readonly columns = [
    ['builds', 'version_name', 'varchar(200)'],
    ['builds', 'status_label', 'varchar(20)'],
    ['agent_resource_samples', 'agent_name', 'varchar(64)'],
  ] as const;

  async up(q: QueryRunner): Promise<void> {
    await this.collate(q, '"C"');
  }

  async down(q: QueryRunner): Promise<void> {
    await this.collate(q, '"default"');
  }

  private async collate(q: QueryRunner, collation: string): Promise<void> {
    if (q.connection.options.type !== 'postgres') return;
    for (const [table, column, type] of this.columns) {
      await q.query(`ALTER TABLE "${table}" ALTER COLUMN "${column}" TYPE ${type} COLLATE ${collation}`);
    }
  }
}

import { MigrationInterface, QueryRunner, Table } from 'typeorm';

/**
 * A build's launcher icon (at most 256 KB, PNG or WebP), read at upload. In the database rather
 * than beside the build file so it goes with its build by the cascade (purge, deletion with an
 * app) and no file sweep has to know about it; base64 text keeps it dialect-neutral.
 */
export class BuildIcons1700000015500 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'build_icons',
        columns: [
          { name: 'build_id', type: 'integer', isPrimary: true },
          { name: 'mime', type: 'varchar', length: '20' },
          { name: 'sha256', type: 'varchar', length: '64' },
          { name: 'data_base64', type: 'text' },
        ],
        foreignKeys: [
          { columnNames: ['build_id'], referencedTableName: 'builds', referencedColumnNames: ['id'], onDelete: 'CASCADE' },
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('build_icons');
  }
}

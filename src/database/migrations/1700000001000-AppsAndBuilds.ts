import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { idColumn, timestamp } from '../migration-columns';

/**
 * Apps and their builds. Builds cascade with their app; the list queries filter on app, platform,
 * status and version and sort on upload time, version or status, so each has an index; the purge
 * looks builds up by delete_after.
 */
export class AppsAndBuilds1700000001000 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'apps',
        columns: [
          idColumn(),
          { name: 'name', type: 'varchar', length: '200' },
          { name: 'bundle_id_key', type: 'varchar', length: '255' },
          { name: 'platform', type: 'varchar', length: '10' },
          timestamp('created_at'),
        ],
        indices: [{ name: 'IDX_apps_bundle_id_key', columnNames: ['bundle_id_key'] }],
      }),
    );
    await q.createTable(
      new Table({
        name: 'builds',
        columns: [
          idColumn(),
          { name: 'app_id', type: 'integer' },
          { name: 'name', type: 'varchar', length: '200' },
          { name: 'version_name', type: 'varchar', length: '200', isNullable: true },
          { name: 'build_number', type: 'varchar', length: '200', isNullable: true },
          { name: 'version_label', type: 'varchar', length: '200', isNullable: true },
          { name: 'status_label', type: 'varchar', length: '20', isNullable: true },
          { name: 'platform', type: 'varchar', length: '10' },
          { name: 'bundle_id', type: 'varchar', length: '255' },
          { name: 'file_name', type: 'varchar', length: '100' },
          { name: 'original_name', type: 'varchar', length: '255' },
          { name: 'file_size', type: 'bigint' },
          timestamp('uploaded_at'),
          timestamp('completed_at', true),
          timestamp('delete_after', true),
        ],
        foreignKeys: [{ columnNames: ['app_id'], referencedTableName: 'apps', referencedColumnNames: ['id'], onDelete: 'CASCADE' }],
        indices: [
          { name: 'IDX_builds_app_uploaded', columnNames: ['app_id', 'uploaded_at'] },
          { name: 'IDX_builds_uploaded_at', columnNames: ['uploaded_at'] },
          { name: 'IDX_builds_platform_uploaded', columnNames: ['platform', 'uploaded_at'] },
          { name: 'IDX_builds_status_label', columnNames: ['status_label'] },
          { name: 'IDX_builds_version_name', columnNames: ['version_name'] },
          { name: 'IDX_builds_delete_after', columnNames: ['delete_after'] },
          { name: 'IDX_builds_file_name', columnNames: ['file_name'], isUnique: true },
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('builds');
    await q.dropTable('apps');
  }
}

import { MigrationInterface, QueryRunner, Table } from 'typeorm';

/**
 * Flagged builds (issue 28, docs/builds.md "Flagged builds"): the flags of each build's
 * comparison with the build uploaded before it, computed once at upload (in its transaction) so
 * the inbox can show a badge and filter on them without comparing anything per request.
 *
 * A row only for a build that has flags: `flagged=true` reads the primary key of this table
 * (as small as the flagged builds are few), `flagged=false` probes it per build by the same key,
 * and a page's badge is one primary-key lookup per row. `compared_with_id` has no foreign key: the
 * flags describe the upload, and stay when the earlier build is deleted; they go with their build.
 */
export class BuildFlags1700000017500 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'build_flags',
        columns: [
          { name: 'build_id', type: 'integer', isPrimary: true },
          { name: 'compared_with_id', type: 'integer' },
          { name: 'flag_count', type: 'integer' },
          { name: 'flags', type: 'text' },
        ],
        foreignKeys: [{ columnNames: ['build_id'], referencedTableName: 'builds', referencedColumnNames: ['id'], onDelete: 'CASCADE' }],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('build_flags');
  }
}

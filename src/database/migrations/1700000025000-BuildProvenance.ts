import { MigrationInterface, QueryRunner, Table } from 'typeorm';

/**
 * Build provenance (issue 25, docs/builds.md "Provenance"): where a build came from, as its CI
 * said at upload (commit, branch, repository, pull request, CI run, changelog). A row only for a
 * build uploaded with any of them, so the builds table and its list statements stay as they are;
 * the list filters `branch=` and `commit=` probe this table per build through its indexes.
 */
export class BuildProvenance1700000025000 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'build_provenance',
        columns: [
          { name: 'build_id', type: 'integer', isPrimary: true },
          { name: 'commit_sha', type: 'varchar', length: '64', isNullable: true },
          { name: 'branch', type: 'varchar', length: '255', isNullable: true },
          { name: 'repository', type: 'varchar', length: '200', isNullable: true },
          { name: 'pull_request', type: 'integer', isNullable: true },
          { name: 'ci_url', type: 'varchar', length: '2048', isNullable: true },
          { name: 'changelog', type: 'text', isNullable: true },
        ],
        foreignKeys: [{ columnNames: ['build_id'], referencedTableName: 'builds', referencedColumnNames: ['id'], onDelete: 'CASCADE' }],
        indices: [
          { name: 'IDX_build_provenance_commit', columnNames: ['commit_sha'] },
          { name: 'IDX_build_provenance_branch', columnNames: ['branch'] },
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('build_provenance');
  }
}

import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * PostgreSQL only: indexes in the list's exact order (GET /builds, docs/decisions.md#p1).
 *
 * The list orders by `<column> <dir> NULLS LAST, id <dir>`. PostgreSQL can walk an index for that
 * only when the index has the same order, NULLs placement included: a backward scan of a plain
 * (ASC NULLS LAST) index yields DESC NULLS *FIRST*, so `version_name`/`status_label` descending
 * sorted every build for each page; and an index without `id` leaves ties to a sort after the
 * scan (for `status_label` a fifth of the table per status), and deep pages to heap reads instead
 * of index-only scans. Each index below replaces the one of the same leading columns that it
 * covers (so writes do not maintain both). SQLite walks its single-column indexes for these orders
 * already (the rowid is the id), so there it does nothing.
 */
export class BuildListIndexesPostgres1700000016000 implements MigrationInterface {
  private readonly replacements: [created: string, columns: string, replaced: string | null, replacedColumns: string | null][] = [
    ['IDX_builds_uploaded_id', 'uploaded_at, id', 'IDX_builds_uploaded_at', 'uploaded_at'],
    ['IDX_builds_app_uploaded_id', 'app_id, uploaded_at, id', 'IDX_builds_app_uploaded', 'app_id, uploaded_at'],
    ['IDX_builds_platform_uploaded_id', 'platform, uploaded_at, id', 'IDX_builds_platform_uploaded', 'platform, uploaded_at'],
    ['IDX_builds_version_asc', 'version_name ASC NULLS LAST, id ASC', 'IDX_builds_version_name', 'version_name'],
    ['IDX_builds_version_desc', 'version_name DESC NULLS LAST, id DESC', null, null],
    ['IDX_builds_status_asc', 'status_label ASC NULLS LAST, id ASC', 'IDX_builds_status_label', 'status_label'],
    ['IDX_builds_status_desc', 'status_label DESC NULLS LAST, id DESC', null, null],
  ];

  async up(q: QueryRunner): Promise<void> {
    if (q.connection.options.type !== 'postgres') return;
    for (const [created, columns, replaced] of this.replacements) {
      await q.query(`CREATE INDEX "${created}" ON "builds" (${columns})`);
      if (replaced) await q.query(`DROP INDEX "${replaced}"`);
    }
    await q.query('ANALYZE "builds"');
  }

  async down(q: QueryRunner): Promise<void> {
    if (q.connection.options.type !== 'postgres') return;
    for (const [created, , replaced, replacedColumns] of [...this.replacements].reverse()) {
      if (replaced) await q.query(`CREATE INDEX "${replaced}" ON "builds" (${replacedColumns})`);
      await q.query(`DROP INDEX "${created}"`);
    }
  }
}

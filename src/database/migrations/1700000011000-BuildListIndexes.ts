import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';

/**
 * GET /builds at scale (issue 11, docs/decisions.md#item-2).
 *
 * - `IDX_builds_status_uploaded` (status_label, uploaded_at, id): the status filter with the default
 *   sort reads its page straight from the index instead of sorting the whole status.
 * - `build_counts`: how many builds each (app, platform, status) has, kept exact by triggers on
 *   `builds` (insert, delete — cascades from an app's deletion included — and updates of those
 *   three columns), so the list's `total` is a sum over a few hundred rows instead of a count over
 *   every matching build. An unset status is counted under `status_key` ''. Only a search (`q`)
 *   still counts the builds themselves.
 *
 * Any later migration that rebuilds the builds table (on SQLite TypeORM copies the table to change
 * a column, which drops its triggers) must create the triggers again: `test/builds/build-counts`
 * fails when they are missing or the counts disagree with the rows.
 */
export class BuildListIndexes1700000011000 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.createIndex(
      'builds',
      new TableIndex({ name: 'IDX_builds_status_uploaded', columnNames: ['status_label', 'uploaded_at', 'id'] }),
    );
    await q.createTable(
      new Table({
        name: 'build_counts',
        columns: [
          { name: 'app_id', type: 'integer', isPrimary: true },
          { name: 'platform', type: 'varchar', length: '10', isPrimary: true },
          { name: 'status_key', type: 'varchar', length: '20', isPrimary: true },
          { name: 'n', type: 'integer' },
        ],
      }),
    );
    const postgres = q.connection.options.type === 'postgres';
    for (const sql of postgres ? POSTGRES_TRIGGERS : SQLITE_TRIGGERS) await q.query(sql);
    await q.query(
      `INSERT INTO build_counts (app_id, platform, status_key, n)
       SELECT app_id, platform, COALESCE(status_label, ''), COUNT(*) FROM builds GROUP BY app_id, platform, COALESCE(status_label, '')`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    if (q.connection.options.type === 'postgres') {
      await q.query('DROP TRIGGER IF EXISTS builds_count ON builds');
      await q.query('DROP FUNCTION IF EXISTS builds_count()');
    } else {
      for (const name of ['insert', 'delete', 'update']) await q.query(`DROP TRIGGER IF EXISTS builds_count_${name}`);
    }
    await q.dropTable('build_counts');
    await q.dropIndex('builds', 'IDX_builds_status_uploaded');
  }
}

const SQLITE_ADD = `INSERT INTO build_counts (app_id, platform, status_key, n)
  VALUES (NEW.app_id, NEW.platform, COALESCE(NEW.status_label, ''), 1)
  ON CONFLICT (app_id, platform, status_key) DO UPDATE SET n = n + 1;`;
const SQLITE_REMOVE = `UPDATE build_counts SET n = n - 1
  WHERE app_id = OLD.app_id AND platform = OLD.platform AND status_key = COALESCE(OLD.status_label, '');
  DELETE FROM build_counts
  WHERE app_id = OLD.app_id AND platform = OLD.platform AND status_key = COALESCE(OLD.status_label, '') AND n <= 0;`;

const SQLITE_TRIGGERS = [
  `CREATE TRIGGER builds_count_insert AFTER INSERT ON builds BEGIN ${SQLITE_ADD} END`,
  `CREATE TRIGGER builds_count_delete AFTER DELETE ON builds BEGIN ${SQLITE_REMOVE} END`,
  `CREATE TRIGGER builds_count_update AFTER UPDATE OF app_id, platform, status_label ON builds BEGIN ${SQLITE_REMOVE} ${SQLITE_ADD} END`,
];

/** The counting function as this migration creates it (1700000016500 replaces it and puts it back on the way down). */
export const POSTGRES_COUNT_FUNCTION = `CREATE FUNCTION builds_count() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF TG_OP IN ('DELETE', 'UPDATE') THEN
       UPDATE build_counts SET n = n - 1
       WHERE app_id = OLD.app_id AND platform = OLD.platform AND status_key = COALESCE(OLD.status_label, '');
       DELETE FROM build_counts
       WHERE app_id = OLD.app_id AND platform = OLD.platform AND status_key = COALESCE(OLD.status_label, '') AND n <= 0;
     END IF;
     IF TG_OP IN ('INSERT', 'UPDATE') THEN
       INSERT INTO build_counts (app_id, platform, status_key, n)
       VALUES (NEW.app_id, NEW.platform, COALESCE(NEW.status_label, ''), 1)
       ON CONFLICT (app_id, platform, status_key) DO UPDATE SET n = build_counts.n + 1;
     END IF;
     RETURN NULL;
   END $$`;

const POSTGRES_TRIGGERS = [
  POSTGRES_COUNT_FUNCTION,
  `CREATE TRIGGER builds_count AFTER INSERT OR DELETE OR UPDATE OF app_id, platform, status_label ON builds
   FOR EACH ROW EXECUTE FUNCTION builds_count()`,
];

import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * GET /builds with `q` or `search` at a million builds (issue 27 item 3, docs/decisions.md#issue-27-text):
 * their exact totals count tens or hundreds of thousands of matches, which no index answers in a
 * few milliseconds. The relay keeps each total it counted, valid while `build_list_changes.n` is
 * unchanged (src/builds/search-totals.ts). Triggers bump `n` on every write that can change a total
 * of those lists: a build added or deleted (an app's deletion cascades), and a change of its app,
 * platform, status or of a searched field (an app renamed changes its builds' search text). One
 * row, read with or before the count it validates, so a total counted from older rows is never
 * kept under a newer `n`.
 *
 * - PostgreSQL: a deferred constraint trigger (an app rename reaches builds as an update of their
 *   search_text), which bumps `n` once per transaction (a transaction-local setting remembers it),
 *   at its commit: the row is locked only from then to the commit's end, and writes to builds queue
 *   on it only for that moment. The count triggers are deferred too (migrations 1700000027000,
 *   1700000027500), and deferred triggers fire row by row: this one is named to sort first
 *   (`builds_0_…`; one event's triggers fire in name order), so every transaction that changes a
 *   count takes this row before any count row. A transaction changing several builds (a purge, an
 *   app's deletion) could otherwise hold one count row while waiting here, against an upload
 *   holding this row while waiting for that count row: a deadlock.
 * - SQLite: row triggers (one write at a time anyway), and one on apps' name (the search text lives
 *   in the FTS5 table there, not on builds). A later migration that rebuilds the builds table must
 *   create them again (test/builds/search-totals fails without them).
 */
export class BuildListChanges1700000027400 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    const postgres = q.connection.options.type === 'postgres';
    await q.query(`CREATE TABLE build_list_changes (id integer PRIMARY KEY, n bigint NOT NULL)`);
    await q.query('INSERT INTO build_list_changes (id, n) VALUES (1, 0)');
    for (const sql of postgres ? POSTGRES_UP : SQLITE_UP) await q.query(sql);
  }

  async down(q: QueryRunner): Promise<void> {
    if (q.connection.options.type === 'postgres') {
      await q.query('DROP TRIGGER IF EXISTS builds_0_list_changes ON builds');
      await q.query('DROP FUNCTION IF EXISTS build_list_changed()');
    } else {
      for (const name of ['builds_list_insert', 'builds_list_delete', 'builds_list_update', 'apps_list_rename']) await q.query(`DROP TRIGGER IF EXISTS ${name}`);
    }
    await q.query('DROP TABLE build_list_changes');
  }
}

/** The builds columns a total of `q` or `search` (with the spec's filters) depends on. */
const COUNTED_COLUMNS = 'app_id, platform, status_label, name, bundle_id, version_name, build_number, version_label';
const BUMP = 'UPDATE build_list_changes SET n = n + 1 WHERE id = 1;';

const SQLITE_UP = [
  `CREATE TRIGGER builds_list_insert AFTER INSERT ON builds BEGIN ${BUMP} END`,
  `CREATE TRIGGER builds_list_delete AFTER DELETE ON builds BEGIN ${BUMP} END`,
  `CREATE TRIGGER builds_list_update AFTER UPDATE OF ${COUNTED_COLUMNS} ON builds BEGIN ${BUMP} END`,
  `CREATE TRIGGER apps_list_rename AFTER UPDATE OF name ON apps WHEN OLD.name IS NOT NEW.name BEGIN ${BUMP} END`,
];

const POSTGRES_UP = [
  `CREATE FUNCTION build_list_changed() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF current_setting('svc.build_list_changed', true) = 'on' THEN RETURN NULL; END IF;
     PERFORM set_config('svc.build_list_changed', 'on', true);
     ${BUMP}
     RETURN NULL;
   END $$`,
  `CREATE CONSTRAINT TRIGGER builds_0_list_changes AFTER INSERT OR DELETE OR UPDATE OF ${COUNTED_COLUMNS}, search_text ON builds
   DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION build_list_changed()`,
];

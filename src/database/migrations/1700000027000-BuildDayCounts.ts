import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * GET /builds at a million builds (issue 27 item 3, docs/decisions.md#issue-27-pages): how many
 * builds each (upload day, app, platform, status) has, kept exact by triggers on `builds` as
 * `build_counts` is. A deep page of the list by upload time seeks to the day that holds its first
 * row by summing whole days (build-list-statements.ts `seekPageIds`) and walks the index only
 * within that day, instead of stepping over every row before the page.
 *
 * The backfill writes the rows in key order, so on PostgreSQL (a heap, not the key's order) a day's
 * rows share a few pages: grouped by hashing they were spread over the table, and summing a day
 * read ~200 pages instead of ~6.
 *
 * A day is `uploaded_at / 86400000` (UTC days of epoch milliseconds; integer division, the same on
 * both databases for the positive times the relay stores). The key starts with the day, so a day's
 * rows are one range of the primary key (SQLite: WITHOUT ROWID, the table is that key).
 *
 * PostgreSQL: both count tables are updated in place on every write; `fillfactor` leaves room on
 * each page so those updates stay HOT (n is in no index: no new index entry, the old version pruned
 * on the page), and autovacuum visits them after a fixed number of changes rather than a fraction
 * of their few rows. SQLite updates rows in place: nothing to set.
 *
 * Like `build_counts`, a later migration that rebuilds the builds table on SQLite must create the
 * triggers again (test/builds/build-counts compares these counts with the rows).
 */
export class BuildDayCounts1700000027000 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    const postgres = q.connection.options.type === 'postgres';
    await q.query(
      `CREATE TABLE build_day_counts (day ${postgres ? 'bigint' : 'INTEGER'} NOT NULL, app_id integer NOT NULL, platform varchar(10) NOT NULL,
         status_key varchar(20) NOT NULL, n integer NOT NULL, PRIMARY KEY (day, app_id, platform, status_key))${postgres ? ` WITH (${COUNT_TABLE_STORAGE})` : ' WITHOUT ROWID'}`,
    );
    await q.query(
      `INSERT INTO build_day_counts (day, app_id, platform, status_key, n)
       SELECT uploaded_at / ${DAY_MS}, app_id, platform, COALESCE(status_label, ''), COUNT(*) FROM builds
       GROUP BY uploaded_at / ${DAY_MS}, app_id, platform, COALESCE(status_label, '') ORDER BY 1, 2, 3, 4`,
    );
    for (const statement of postgres ? POSTGRES_TRIGGERS : SQLITE_TRIGGERS) await q.query(statement);
    if (postgres) {
      await q.query(`ALTER TABLE build_counts SET (${COUNT_TABLE_STORAGE})`);
      await q.query('ANALYZE build_day_counts');
    }
  }

  async down(q: QueryRunner): Promise<void> {
    if (q.connection.options.type === 'postgres') {
      await q.query('DROP TRIGGER IF EXISTS builds_day_count ON builds');
      await q.query('DROP FUNCTION IF EXISTS builds_day_count()');
      await q.query('DROP FUNCTION IF EXISTS build_day_counts_change(bigint, integer, varchar, varchar, integer)');
      await q.query('ALTER TABLE build_counts RESET (fillfactor, autovacuum_vacuum_scale_factor, autovacuum_vacuum_threshold)');
    } else {
      for (const name of ['insert', 'delete', 'update']) await q.query(`DROP TRIGGER IF EXISTS builds_day_count_${name}`);
    }
    await q.query('DROP TABLE build_day_counts');
  }
}

/** A UTC day in epoch milliseconds: the width of one count row's time range. */
export const DAY_MS = 86_400_000;

/** PostgreSQL storage of the count tables: room for HOT updates, and vacuum after a fixed number of changes. */
export const COUNT_TABLE_STORAGE = 'fillfactor = 30, autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000';

const SQLITE_ADD = `INSERT INTO build_day_counts (day, app_id, platform, status_key, n)
  VALUES (NEW.uploaded_at / ${DAY_MS}, NEW.app_id, NEW.platform, COALESCE(NEW.status_label, ''), 1)
  ON CONFLICT (day, app_id, platform, status_key) DO UPDATE SET n = n + 1;`;
const SQLITE_REMOVE = `UPDATE build_day_counts SET n = n - 1
  WHERE day = OLD.uploaded_at / ${DAY_MS} AND app_id = OLD.app_id AND platform = OLD.platform AND status_key = COALESCE(OLD.status_label, '');
  DELETE FROM build_day_counts
  WHERE day = OLD.uploaded_at / ${DAY_MS} AND app_id = OLD.app_id AND platform = OLD.platform AND status_key = COALESCE(OLD.status_label, '') AND n <= 0;`;

const SQLITE_TRIGGERS = [
  `CREATE TRIGGER builds_day_count_insert AFTER INSERT ON builds BEGIN ${SQLITE_ADD} END`,
  `CREATE TRIGGER builds_day_count_delete AFTER DELETE ON builds BEGIN ${SQLITE_REMOVE} END`,
  `CREATE TRIGGER builds_day_count_update AFTER UPDATE OF uploaded_at, app_id, platform, status_label ON builds BEGIN ${SQLITE_REMOVE} ${SQLITE_ADD} END`,
];

/**
 * PostgreSQL: one function moves a count by +1 or -1; the trigger takes its two rows of a change in
 * key order, as `builds_count` does (migration 1700000016500), so two opposite status changes cannot
 * deadlock. Like `builds_count` since migration 1700000027500 it is deferred to the commit: every
 * upload of an app on one day updates the same row, which an immediate trigger would hold locked
 * from the build's INSERT to the end of the upload (docs/decisions.md#issue-27-pg-soak). Triggers of
 * one event fire in name order: `builds_0_list_changes` (migration 1700000027400) first, then
 * `builds_count`, then this one.
 */
const POSTGRES_TRIGGERS = [
  `CREATE FUNCTION build_day_counts_change(d bigint, a integer, p varchar, s varchar, delta integer) RETURNS void LANGUAGE plpgsql AS $$
   BEGIN
     IF delta > 0 THEN
       INSERT INTO build_day_counts (day, app_id, platform, status_key, n) VALUES (d, a, p, s, 1)
       ON CONFLICT (day, app_id, platform, status_key) DO UPDATE SET n = build_day_counts.n + 1;
     ELSE
       UPDATE build_day_counts SET n = n - 1 WHERE day = d AND app_id = a AND platform = p AND status_key = s;
       DELETE FROM build_day_counts WHERE day = d AND app_id = a AND platform = p AND status_key = s AND n <= 0;
     END IF;
   END $$`,
  `CREATE FUNCTION builds_day_count() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF TG_OP = 'UPDATE' AND (OLD.uploaded_at / ${DAY_MS}, OLD.app_id, OLD.platform, COALESCE(OLD.status_label, ''))
         > (NEW.uploaded_at / ${DAY_MS}, NEW.app_id, NEW.platform, COALESCE(NEW.status_label, '')) THEN
       PERFORM build_day_counts_change(NEW.uploaded_at / ${DAY_MS}, NEW.app_id, NEW.platform, COALESCE(NEW.status_label, ''), 1);
       PERFORM build_day_counts_change(OLD.uploaded_at / ${DAY_MS}, OLD.app_id, OLD.platform, COALESCE(OLD.status_label, ''), -1);
       RETURN NULL;
     END IF;
     IF TG_OP IN ('DELETE', 'UPDATE') THEN
       PERFORM build_day_counts_change(OLD.uploaded_at / ${DAY_MS}, OLD.app_id, OLD.platform, COALESCE(OLD.status_label, ''), -1);
     END IF;
     IF TG_OP IN ('INSERT', 'UPDATE') THEN
       PERFORM build_day_counts_change(NEW.uploaded_at / ${DAY_MS}, NEW.app_id, NEW.platform, COALESCE(NEW.status_label, ''), 1);
     END IF;
     RETURN NULL;
   END $$`,
  `CREATE CONSTRAINT TRIGGER builds_day_count AFTER INSERT OR DELETE OR UPDATE OF uploaded_at, app_id, platform, status_label ON builds
   DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION builds_day_count()`,
];

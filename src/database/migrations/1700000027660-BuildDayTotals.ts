import { MigrationInterface, QueryRunner } from 'typeorm';
import { COUNT_TABLE_STORAGE, DAY_MS } from './1700000027000-BuildDayCounts';

/**
 * GET /builds at a million builds (issue 27 item 3, docs/decisions.md#issue-27-day-totals): how many
 * builds each UTC upload day has, kept exact by triggers on `builds` like `build_day_counts`, whose
 * rows it sums. A deep page of the unfiltered list seeks its day by summing whole days
 * (build-list-statements.ts `seekPageIds`); from `build_day_counts` that was ~227 rows a day (app ×
 * platform × status), 16,000 rows for page 10,000 (PostgreSQL: 8–12 ms of the statement's ~12, each
 * row a heap fetch); from here it is one row a day. Filtered lists keep summing `build_day_counts`.
 *
 * The backfill sums `build_day_counts` (79,040 rows at a million builds), not the builds.
 *
 * PostgreSQL: deferred to the commit like the other count tables (every upload of a day updates the
 * same row), named to fire after `builds_day_count` (one event's triggers fire in name order), so
 * after `build_list_changes`, which every writer takes first; the count tables' storage.
 */
export class BuildDayTotals1700000027660 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    const postgres = q.connection.options.type === 'postgres';
    await q.query(
      `CREATE TABLE build_day_totals (day ${postgres ? 'bigint' : 'INTEGER'} NOT NULL PRIMARY KEY, n integer NOT NULL)${postgres ? ` WITH (${COUNT_TABLE_STORAGE})` : ' WITHOUT ROWID'}`,
    );
    await q.query('INSERT INTO build_day_totals (day, n) SELECT day, SUM(n) FROM build_day_counts GROUP BY day ORDER BY day');
    for (const statement of postgres ? POSTGRES_TRIGGERS : SQLITE_TRIGGERS) await q.query(statement);
    if (postgres) await q.query('ANALYZE build_day_totals');
  }

  async down(q: QueryRunner): Promise<void> {
    if (q.connection.options.type === 'postgres') {
      await q.query('DROP TRIGGER IF EXISTS builds_day_total ON builds');
      await q.query('DROP FUNCTION IF EXISTS builds_day_total()');
      await q.query('DROP FUNCTION IF EXISTS build_day_totals_change(bigint, integer)');
    } else {
      for (const name of ['insert', 'delete', 'update']) await q.query(`DROP TRIGGER IF EXISTS builds_day_total_${name}`);
    }
    await q.query('DROP TABLE build_day_totals');
  }
}

const SQLITE_ADD = `INSERT INTO build_day_totals (day, n) VALUES (NEW.uploaded_at / ${DAY_MS}, 1) ON CONFLICT (day) DO UPDATE SET n = n + 1;`;
const SQLITE_REMOVE = `UPDATE build_day_totals SET n = n - 1 WHERE day = OLD.uploaded_at / ${DAY_MS};
  DELETE FROM build_day_totals WHERE day = OLD.uploaded_at / ${DAY_MS} AND n <= 0;`;

const SQLITE_TRIGGERS = [
  `CREATE TRIGGER builds_day_total_insert AFTER INSERT ON builds BEGIN ${SQLITE_ADD} END`,
  `CREATE TRIGGER builds_day_total_delete AFTER DELETE ON builds BEGIN ${SQLITE_REMOVE} END`,
  `CREATE TRIGGER builds_day_total_update AFTER UPDATE OF uploaded_at ON builds WHEN OLD.uploaded_at / ${DAY_MS} IS NOT NEW.uploaded_at / ${DAY_MS}
   BEGIN ${SQLITE_REMOVE} ${SQLITE_ADD} END`,
];

/** PostgreSQL: a move between two days takes their rows in key order, as the other count triggers do. */
const POSTGRES_TRIGGERS = [
  `CREATE FUNCTION build_day_totals_change(d bigint, delta integer) RETURNS void LANGUAGE plpgsql AS $$
   BEGIN
     IF delta > 0 THEN
       INSERT INTO build_day_totals (day, n) VALUES (d, 1) ON CONFLICT (day) DO UPDATE SET n = build_day_totals.n + 1;
     ELSE
       UPDATE build_day_totals SET n = n - 1 WHERE day = d;
       DELETE FROM build_day_totals WHERE day = d AND n <= 0;
     END IF;
   END $$`,
  `CREATE FUNCTION builds_day_total() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF TG_OP = 'UPDATE' AND OLD.uploaded_at / ${DAY_MS} = NEW.uploaded_at / ${DAY_MS} THEN RETURN NULL; END IF;
     IF TG_OP = 'UPDATE' AND OLD.uploaded_at / ${DAY_MS} > NEW.uploaded_at / ${DAY_MS} THEN
       PERFORM build_day_totals_change(NEW.uploaded_at / ${DAY_MS}, 1);
       PERFORM build_day_totals_change(OLD.uploaded_at / ${DAY_MS}, -1);
       RETURN NULL;
     END IF;
     IF TG_OP IN ('DELETE', 'UPDATE') THEN PERFORM build_day_totals_change(OLD.uploaded_at / ${DAY_MS}, -1); END IF;
     IF TG_OP IN ('INSERT', 'UPDATE') THEN PERFORM build_day_totals_change(NEW.uploaded_at / ${DAY_MS}, 1); END IF;
     RETURN NULL;
   END $$`,
  `CREATE CONSTRAINT TRIGGER builds_day_total AFTER INSERT OR DELETE OR UPDATE OF uploaded_at ON builds
   DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION builds_day_total()`,
];

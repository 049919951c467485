import { MigrationInterface, QueryRunner } from 'typeorm';
import { COUNT_TABLE_STORAGE } from './1700000027000-BuildDayCounts';

/**
 * GET /builds?branch= at a million builds (issue 27 item 3, docs/decisions.md#issue-27-branch):
 * how many builds each branch has, kept exact by triggers on `build_provenance` as `build_counts`
 * is by triggers on builds. The list's total for `branch` alone was a count of the branch's index
 * entries: 309,753 for `main` in the benchmark's million builds, 8 ms of the relay's CPU per answer
 * on SQLite (its one thread, so every other request waited) and ~30 ms in PostgreSQL. Now one row.
 *
 * A provenance row is written with its build (the upload's transaction) and deleted with it (the
 * foreign key's cascade, whose deletes fire these triggers on both databases); its branch is never
 * updated today, but an update of it is counted too. A null branch is not counted (`branch=` is an
 * equality, which null never meets).
 *
 * PostgreSQL: like the other count tables, deferred to the commit (a branch's row is shared by
 * every upload on it; an immediate trigger would hold it from the provenance INSERT to the end of
 * the upload), with their storage (fillfactor, autovacuum after 1,000 changes; migration
 * 1700000027000). Its events are queued after the build's own (the provenance row is written after
 * its build, and a cascade runs after the builds DELETE), so at the commit this row is taken after
 * `build_list_changes` and the count rows, in the order every other writer takes them. An update
 * that moves a build between branches takes the two rows in key order, as `builds_count` does.
 */
export class BuildBranchCounts1700000027640 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    const postgres = q.connection.options.type === 'postgres';
    await q.query(
      `CREATE TABLE build_branch_counts (branch varchar(255) NOT NULL PRIMARY KEY, n integer NOT NULL)${postgres ? ` WITH (${COUNT_TABLE_STORAGE})` : ' WITHOUT ROWID'}`,
    );
    // From the branch index alone (the rows in key order).
    await q.query('INSERT INTO build_branch_counts (branch, n) SELECT branch, COUNT(*) FROM build_provenance WHERE branch IS NOT NULL GROUP BY branch ORDER BY branch');
    for (const statement of postgres ? POSTGRES_TRIGGERS : SQLITE_TRIGGERS) await q.query(statement);
    if (postgres) await q.query('ANALYZE build_branch_counts');
  }

  async down(q: QueryRunner): Promise<void> {
    if (q.connection.options.type === 'postgres') {
      await q.query('DROP TRIGGER IF EXISTS build_provenance_branch_count ON build_provenance');
      await q.query('DROP FUNCTION IF EXISTS build_provenance_branch_count()');
      await q.query('DROP FUNCTION IF EXISTS build_branch_counts_change(varchar, integer)');
    } else {
      for (const name of ['insert', 'delete', 'update']) await q.query(`DROP TRIGGER IF EXISTS build_provenance_branch_count_${name}`);
    }
    await q.query('DROP TABLE build_branch_counts');
  }
}

const SQLITE_ADD = `INSERT INTO build_branch_counts (branch, n) SELECT NEW.branch, 1 WHERE NEW.branch IS NOT NULL
  ON CONFLICT (branch) DO UPDATE SET n = n + 1;`;
const SQLITE_REMOVE = `UPDATE build_branch_counts SET n = n - 1 WHERE branch = OLD.branch;
  DELETE FROM build_branch_counts WHERE branch = OLD.branch AND n <= 0;`;

const SQLITE_TRIGGERS = [
  `CREATE TRIGGER build_provenance_branch_count_insert AFTER INSERT ON build_provenance BEGIN ${SQLITE_ADD} END`,
  `CREATE TRIGGER build_provenance_branch_count_delete AFTER DELETE ON build_provenance BEGIN ${SQLITE_REMOVE} END`,
  `CREATE TRIGGER build_provenance_branch_count_update AFTER UPDATE OF branch ON build_provenance WHEN OLD.branch IS NOT NEW.branch
   BEGIN ${SQLITE_REMOVE} ${SQLITE_ADD} END`,
];

const POSTGRES_TRIGGERS = [
  `CREATE FUNCTION build_branch_counts_change(b varchar, delta integer) RETURNS void LANGUAGE plpgsql AS $$
   BEGIN
     IF b IS NULL THEN RETURN; END IF;
     IF delta > 0 THEN
       INSERT INTO build_branch_counts (branch, n) VALUES (b, 1) ON CONFLICT (branch) DO UPDATE SET n = build_branch_counts.n + 1;
     ELSE
       UPDATE build_branch_counts SET n = n - 1 WHERE branch = b;
       DELETE FROM build_branch_counts WHERE branch = b AND n <= 0;
     END IF;
   END $$`,
  `CREATE FUNCTION build_provenance_branch_count() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF TG_OP = 'UPDATE' AND OLD.branch IS NOT DISTINCT FROM NEW.branch THEN RETURN NULL; END IF;
     IF TG_OP = 'UPDATE' AND OLD.branch > NEW.branch THEN
       PERFORM build_branch_counts_change(NEW.branch, 1);
       PERFORM build_branch_counts_change(OLD.branch, -1);
       RETURN NULL;
     END IF;
     IF TG_OP IN ('DELETE', 'UPDATE') THEN PERFORM build_branch_counts_change(OLD.branch, -1); END IF;
     IF TG_OP IN ('INSERT', 'UPDATE') THEN PERFORM build_branch_counts_change(NEW.branch, 1); END IF;
     RETURN NULL;
   END $$`,
  `CREATE CONSTRAINT TRIGGER build_provenance_branch_count AFTER INSERT OR DELETE OR UPDATE OF branch ON build_provenance
   DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION build_provenance_branch_count()`,
];

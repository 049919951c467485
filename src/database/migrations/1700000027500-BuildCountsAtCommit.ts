import { MigrationInterface, QueryRunner } from 'typeorm';

const COLUMNS = 'AFTER INSERT OR DELETE OR UPDATE OF app_id, platform, status_label ON builds';

/**
 * PostgreSQL only (issue 27, docs/decisions.md#issue-27-pg-soak): the `build_counts` trigger runs
 * when its transaction commits instead of at each row's change. A count row is shared by every
 * build of its (app, platform, status), so the trigger's UPDATE of it locks it until the end of the
 * transaction: run at the INSERT, an upload held its app's row through each of its later statements,
 * every one a round trip through a busy relay, and every other upload and status change of the app
 * waited behind it, each holding a pooled connection. Deferred, the row is locked only for the
 * commit itself. The function is the same (`builds_count()`, its two rows in key order, migration
 * 1700000016500), so the counts stay exact and are written in the same transaction; what changes
 * is that a transaction does not see its own changes in `build_counts` before it commits (nothing
 * reads them there). SQLite runs one write transaction at a time: nothing to do.
 */
export class BuildCountsAtCommit1700000027500 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    if (q.connection.options.type !== 'postgres') return;
    await q.query('DROP TRIGGER builds_count ON builds');
    await q.query(`CREATE CONSTRAINT TRIGGER builds_count ${COLUMNS} DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION builds_count()`);
  }

  async down(q: QueryRunner): Promise<void> {
    if (q.connection.options.type !== 'postgres') return;
    await q.query('DROP TRIGGER builds_count ON builds');
    await q.query(`CREATE TRIGGER builds_count ${COLUMNS} FOR EACH ROW EXECUTE FUNCTION builds_count()`);
  }
}

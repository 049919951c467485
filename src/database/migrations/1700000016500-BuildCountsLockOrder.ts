import { MigrationInterface, QueryRunner } from 'typeorm';
import { POSTGRES_COUNT_FUNCTION } from './1700000011000-BuildListIndexes';

/**
 * PostgreSQL only: the `build_counts` trigger (migration 1700000011000) takes its two count rows in
 * one order. A status change moves one count from the old (app, platform, status) row to the new
 * one; two concurrent changes in one app in opposite directions (Done → Rejected and Rejected →
 * Done) each locked its "from" row and then waited for the other's: a deadlock, and PostgreSQL
 * aborted one of them (the PATCH answered 500). Now the row with the smaller key is always taken
 * first, so neither waits for the other in a cycle. SQLite runs one write at a time: nothing to do.
 */
export class BuildCountsLockOrder1700000016500 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    if (q.connection.options.type !== 'postgres') return;
    await q.query(`CREATE FUNCTION build_counts_add(a integer, p varchar, s varchar) RETURNS void LANGUAGE sql AS $$
      INSERT INTO build_counts (app_id, platform, status_key, n) VALUES (a, p, s, 1)
      ON CONFLICT (app_id, platform, status_key) DO UPDATE SET n = build_counts.n + 1 $$`);
    await q.query(`CREATE FUNCTION build_counts_remove(a integer, p varchar, s varchar) RETURNS void LANGUAGE sql AS $$
      UPDATE build_counts SET n = n - 1 WHERE app_id = a AND platform = p AND status_key = s;
      DELETE FROM build_counts WHERE app_id = a AND platform = p AND status_key = s AND n <= 0 $$`);
    await q.query(`CREATE OR REPLACE FUNCTION builds_count() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'UPDATE' AND (OLD.app_id, OLD.platform, COALESCE(OLD.status_label, '')) > (NEW.app_id, NEW.platform, COALESCE(NEW.status_label, '')) THEN
          PERFORM build_counts_add(NEW.app_id, NEW.platform, COALESCE(NEW.status_label, ''));
          PERFORM build_counts_remove(OLD.app_id, OLD.platform, COALESCE(OLD.status_label, ''));
          RETURN NULL;
        END IF;
        IF TG_OP IN ('DELETE', 'UPDATE') THEN
          PERFORM build_counts_remove(OLD.app_id, OLD.platform, COALESCE(OLD.status_label, ''));
        END IF;
        IF TG_OP IN ('INSERT', 'UPDATE') THEN
          PERFORM build_counts_add(NEW.app_id, NEW.platform, COALESCE(NEW.status_label, ''));
        END IF;
        RETURN NULL;
      END $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    if (q.connection.options.type !== 'postgres') return;
    await q.query(POSTGRES_COUNT_FUNCTION.replace('CREATE FUNCTION', 'CREATE OR REPLACE FUNCTION'));
    await q.query('DROP FUNCTION build_counts_remove(integer, varchar, varchar)');
    await q.query('DROP FUNCTION build_counts_add(integer, varchar, varchar)');
  }
}

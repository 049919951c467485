import { Logger } from '@nestjs/common';
import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * GET /builds?search= (docs/builds.md "Search"), indexed so it stays fast at 100,000 builds.
 *
 * Each build has a search text: the app's name, the build's name, bundle id, version name, build
 * number and label, one per line, ASCII-lowercased (LOWER() on SQLite, `lower(… COLLATE "C")` on
 * PostgreSQL: the same folding as `q`). Triggers keep it, whoever writes the rows: an upload, a
 * label changed by PATCH, an app renamed (every build of the app), an app merged or deleted.
 *
 * - PostgreSQL: a column `builds.search_text`, set by a BEFORE trigger (no second write), with a
 *   pg_trgm GIN index that serves `LIKE '%term%'`. pg_trgm ships with PostgreSQL (contrib) and is
 *   a trusted extension (13+): the database's owner may create it. Where it cannot be created the
 *   relay still starts and the search scans the table (logged once here).
 * - SQLite: an FTS5 table `build_search` with the trigram tokenizer (rowid = build id; case
 *   sensitive, so GLOB uses it, over the already-lowered text), kept by AFTER triggers.
 *
 * As for `build_counts`: a later migration that rebuilds the builds table on SQLite must create
 * these triggers again (test/builds/search fails without them).
 */
export class BuildSearch1700000017600 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    if (q.connection.options.type === 'postgres') await upPostgres(q);
    else for (const sql of SQLITE_UP) await q.query(sql);
  }

  async down(q: QueryRunner): Promise<void> {
    if (q.connection.options.type === 'postgres') {
      await q.query('DROP TRIGGER IF EXISTS apps_search_text ON apps');
      await q.query('DROP TRIGGER IF EXISTS builds_search_text ON builds');
      await q.query('DROP FUNCTION IF EXISTS apps_search_text()');
      await q.query('DROP FUNCTION IF EXISTS builds_search_text()');
      await q.query('DROP INDEX IF EXISTS "IDX_builds_search_trgm"');
      await q.query('ALTER TABLE builds DROP COLUMN search_text');
      await q.query('DROP FUNCTION IF EXISTS build_search_text(text, text, text, text, text, text)');
    } else {
      for (const name of ['builds_search_insert', 'builds_search_update', 'builds_search_delete', 'apps_search_rename']) {
        await q.query(`DROP TRIGGER IF EXISTS ${name}`);
      }
      await q.query('DROP TABLE IF EXISTS build_search');
    }
  }
}

/** The search text of a build row (`row.` columns) under an app name (SQLite). */
const sqliteText = (appName: string, row: string) =>
  `lower(concat_ws(char(10), ${appName}, ${row}.name, ${row}.bundle_id, ${row}.version_name, ${row}.build_number, ${row}.version_label))`;
const appNameOf = (row: string) => `(SELECT a.name FROM apps a WHERE a.id = ${row}.app_id)`;

const SQLITE_UP = [
  `CREATE VIRTUAL TABLE build_search USING fts5(search_text, tokenize = 'trigram case_sensitive 1', detail = 'none')`,
  `INSERT INTO build_search (rowid, search_text) SELECT b.id, ${sqliteText(appNameOf('b'), 'b')} FROM builds b`,
  `CREATE TRIGGER builds_search_insert AFTER INSERT ON builds BEGIN
     INSERT INTO build_search (rowid, search_text) VALUES (NEW.id, ${sqliteText(appNameOf('NEW'), 'NEW')}); END`,
  `CREATE TRIGGER builds_search_update AFTER UPDATE OF app_id, name, bundle_id, version_name, build_number, version_label ON builds BEGIN
     UPDATE build_search SET search_text = ${sqliteText(appNameOf('NEW'), 'NEW')} WHERE rowid = NEW.id; END`,
  `CREATE TRIGGER builds_search_delete AFTER DELETE ON builds BEGIN DELETE FROM build_search WHERE rowid = OLD.id; END`,
  `CREATE TRIGGER apps_search_rename AFTER UPDATE OF name ON apps WHEN OLD.name IS NOT NEW.name BEGIN
     UPDATE build_search SET search_text = (SELECT ${sqliteText('NEW.name', 'b')} FROM builds b WHERE b.id = build_search.rowid)
     WHERE rowid IN (SELECT b.id FROM builds b WHERE b.app_id = NEW.id); END`,
];

/**
 * The columns this migration gives PostgreSQL alone (SQLite keeps the text in `build_search`):
 * scripts/generate-tables.ts types the tables by running the migrations on SQLite, which cannot
 * see these, so it reads them here, where the statement that adds them reads them too.
 */
export const POSTGRES_ONLY_COLUMNS = { builds: { search_text: 'text COLLATE "C"' } };

async function upPostgres(q: QueryRunner): Promise<void> {
  await q.query(`CREATE FUNCTION build_search_text(app_name text, name text, bundle_id text, version_name text, build_number text, version_label text)
    RETURNS text LANGUAGE sql IMMUTABLE AS $$
      SELECT lower(concat_ws(E'\\n', app_name, name, bundle_id, version_name, build_number, version_label) COLLATE "C") $$`);
  await q.query(`ALTER TABLE builds ADD COLUMN search_text ${POSTGRES_ONLY_COLUMNS.builds.search_text}`);
  await q.query(`UPDATE builds b SET search_text = build_search_text(a.name, b.name, b.bundle_id, b.version_name, b.build_number, b.version_label)
    FROM apps a WHERE a.id = b.app_id`);
  await q.query(`CREATE FUNCTION builds_search_text() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      NEW.search_text := build_search_text((SELECT a.name FROM apps a WHERE a.id = NEW.app_id),
        NEW.name, NEW.bundle_id, NEW.version_name, NEW.build_number, NEW.version_label);
      RETURN NEW;
    END $$`);
  await q.query(`CREATE TRIGGER builds_search_text BEFORE INSERT OR UPDATE OF app_id, name, bundle_id, version_name, build_number, version_label
    ON builds FOR EACH ROW EXECUTE FUNCTION builds_search_text()`);
  // Sets only search_text, so neither the trigger above nor the build_counts one fires again.
  await q.query(`CREATE FUNCTION apps_search_text() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE builds b SET search_text = build_search_text(NEW.name, b.name, b.bundle_id, b.version_name, b.build_number, b.version_label)
      WHERE b.app_id = NEW.id;
      RETURN NULL;
    END $$`);
  await q.query(`CREATE TRIGGER apps_search_text AFTER UPDATE OF name ON apps FOR EACH ROW
    WHEN (OLD.name IS DISTINCT FROM NEW.name) EXECUTE FUNCTION apps_search_text()`);
  if (await trigramsAvailable(q)) await q.query('CREATE INDEX "IDX_builds_search_trgm" ON builds USING gin (search_text gin_trgm_ops)');
  else new Logger('Migrations').warn('pg_trgm is not available: GET /builds?search= scans the builds (docs/database.md)');
  await q.query('ANALYZE builds');
}

/** Creates pg_trgm if it can; a refusal (not installed, not allowed) must not abort the migrations' transaction. */
async function trigramsAvailable(q: QueryRunner): Promise<boolean> {
  await q.query('SAVEPOINT build_search_trgm');
  try {
    await q.query('CREATE EXTENSION IF NOT EXISTS pg_trgm');
    await q.query('RELEASE SAVEPOINT build_search_trgm');
    return true;
  } catch {
    await q.query('ROLLBACK TO SAVEPOINT build_search_trgm');
    return false;
  }
}

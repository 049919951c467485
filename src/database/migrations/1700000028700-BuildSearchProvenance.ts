import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * GET /builds?search= finds a build by its provenance too (issue 40, docs/builds.md "Provenance in
 * the search"): the search text of migration BuildSearch gets up to three more lines, from the
 * build's `build_provenance` row, so the same index (pg_trgm GIN / FTS5 trigram) answers them:
 *
 * - the branch, ASCII-lowercased like the other lines: a term matches it as a substring;
 * - the pull request as `\x1f17\x1f`: `17` matches it as a substring (as a build number), and the
 *   relay turns a term `#17` into the needle `\x1f17\x1f` (exactly 17);
 * - the commit with each hex digit written as an upper-case letter (0-9 → A-J, a-f → K-P), after a
 *   line break. Every other line is lower-case and every term is lowercased, so no term typed by a
 *   person matches inside a SHA ("2200" is not in it); the relay turns a term of 7 to 64 hex
 *   characters into the needle `\n` + its letters: a prefix of the commit.
 *
 * Triggers keep it whoever writes: a provenance row inserted (in the upload's transaction, after its
 * build), changed or deleted, and the build or app triggers of BuildSearch, re-created here to read
 * the provenance row. Also an index on `build_provenance.pull_request` for `GET /builds?pull_request=`.
 */
export class BuildSearchProvenance1700000028700 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    const postgres = q.connection.options.type === 'postgres';
    for (const sql of postgres ? POSTGRES_UP : SQLITE_UP) await q.query(sql);
    await q.query('CREATE INDEX "IDX_build_provenance_pull_request" ON build_provenance (pull_request)');
    if (postgres) await q.query('ANALYZE build_provenance');
  }

  async down(q: QueryRunner): Promise<void> {
    const postgres = q.connection.options.type === 'postgres';
    await q.query('DROP INDEX "IDX_build_provenance_pull_request"');
    for (const sql of postgres ? POSTGRES_DOWN : SQLITE_DOWN) await q.query(sql);
  }
}

const HEX = '0123456789abcdef';
const LETTERS = 'ABCDEFGHIJKLMNOP';

/** SQLite has no translate(): one replace() per hex digit (none of the letters is a hex digit, so the order is free). */
const sqliteLetters = (column: string) => [...HEX].reduce((text, digit, i) => `replace(${text}, '${digit}', '${LETTERS[i]}')`, column);

/** SQLite: the search text of the build whose id is `id` (NULL when there is no such build). */
const sqliteTextOf = (id: string) => `(SELECT lower(concat_ws(char(10), a.name, b.name, b.bundle_id, b.version_name, b.build_number, b.version_label, p.branch))
    || coalesce(char(10, 31) || p.pull_request || char(31), '') || coalesce(char(10) || ${sqliteLetters('p.commit_sha')}, '')
  FROM builds b JOIN apps a ON a.id = b.app_id LEFT JOIN build_provenance p ON p.build_id = b.id WHERE b.id = ${id})`;
/** The text of migration BuildSearch (for down()). */
const sqliteOldTextOf = (id: string) =>
  `(SELECT lower(concat_ws(char(10), a.name, b.name, b.bundle_id, b.version_name, b.build_number, b.version_label)) FROM builds b JOIN apps a ON a.id = b.app_id WHERE b.id = ${id})`;

const BUMP = 'UPDATE build_list_changes SET n = n + 1 WHERE id = 1;';
/** The search text of one build again, after its provenance changed (and the search totals kept until then are stale). */
const sqliteRefresh = (id: string) => `UPDATE build_search SET search_text = ${sqliteTextOf(id)}
  WHERE rowid = ${id} AND EXISTS (SELECT 1 FROM builds WHERE id = ${id}); ${BUMP}`;

const sqliteBuildTriggers = (textOf: (id: string) => string) => [
  'DROP TRIGGER builds_search_insert',
  'DROP TRIGGER builds_search_update',
  'DROP TRIGGER apps_search_rename',
  `CREATE TRIGGER builds_search_insert AFTER INSERT ON builds BEGIN
     INSERT INTO build_search (rowid, search_text) VALUES (NEW.id, ${textOf('NEW.id')}); END`,
  `CREATE TRIGGER builds_search_update AFTER UPDATE OF app_id, name, bundle_id, version_name, build_number, version_label ON builds BEGIN
     UPDATE build_search SET search_text = ${textOf('NEW.id')} WHERE rowid = NEW.id; END`,
  `CREATE TRIGGER apps_search_rename AFTER UPDATE OF name ON apps WHEN OLD.name IS NOT NEW.name BEGIN
     UPDATE build_search SET search_text = ${textOf('build_search.rowid')}
     WHERE rowid IN (SELECT b.id FROM builds b WHERE b.app_id = NEW.id); END`,
];

const SQLITE_UP = [
  ...sqliteBuildTriggers(sqliteTextOf),
  `CREATE TRIGGER build_provenance_search_insert AFTER INSERT ON build_provenance BEGIN ${sqliteRefresh('NEW.build_id')} END`,
  `CREATE TRIGGER build_provenance_search_update AFTER UPDATE OF build_id, branch, pull_request, commit_sha ON build_provenance BEGIN
     ${sqliteRefresh('OLD.build_id')} ${sqliteRefresh('NEW.build_id')} END`,
  `CREATE TRIGGER build_provenance_search_delete AFTER DELETE ON build_provenance BEGIN ${sqliteRefresh('OLD.build_id')} END`,
  `UPDATE build_search SET search_text = ${sqliteTextOf('build_search.rowid')} WHERE rowid IN (SELECT build_id FROM build_provenance)`,
];

const SQLITE_DOWN = [
  ...['insert', 'update', 'delete'].map((name) => `DROP TRIGGER build_provenance_search_${name}`),
  ...sqliteBuildTriggers(sqliteOldTextOf),
  `UPDATE build_search SET search_text = ${sqliteOldTextOf('build_search.rowid')} WHERE rowid IN (SELECT build_id FROM build_provenance)`,
];

/** PostgreSQL: a build's search text is BuildSearch's build_search_text() followed by this. */
const POSTGRES_PROVENANCE_TEXT = `CREATE FUNCTION build_provenance_search_text(branch text, pull_request integer, commit_sha text)
  RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT coalesce(E'\\n' || lower(branch COLLATE "C"), '') || coalesce(E'\\n\\x1f' || pull_request::text || E'\\x1f', '')
      || coalesce(E'\\n' || translate(commit_sha, '${HEX}', '${LETTERS}'), '') $$`;
/** The provenance part of build `id`'s search text ('' without a row). */
const provenanceTextOf = (id: string) =>
  `coalesce((SELECT build_provenance_search_text(p.branch, p.pull_request, p.commit_sha) FROM build_provenance p WHERE p.build_id = ${id}), '')`;

const postgresBuildFunctions = (withProvenance: boolean) => [
  `CREATE OR REPLACE FUNCTION builds_search_text() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      NEW.search_text := build_search_text((SELECT a.name FROM apps a WHERE a.id = NEW.app_id),
        NEW.name, NEW.bundle_id, NEW.version_name, NEW.build_number, NEW.version_label)${withProvenance ? ` || ${provenanceTextOf('NEW.id')}` : ''};
      RETURN NEW;
    END $$`,
  `CREATE OR REPLACE FUNCTION apps_search_text() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE builds b SET search_text = build_search_text(NEW.name, b.name, b.bundle_id, b.version_name, b.build_number, b.version_label)${withProvenance ? ` || ${provenanceTextOf('b.id')}` : ''}
      WHERE b.app_id = NEW.id;
      RETURN NULL;
    END $$`,
];

const POSTGRES_UP = [
  POSTGRES_PROVENANCE_TEXT,
  ...postgresBuildFunctions(true),
  // Sets only search_text: no trigger of builds but the list-changes one (deferred, once a transaction) fires.
  `CREATE FUNCTION build_provenance_search() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP IN ('UPDATE', 'DELETE') THEN
        UPDATE builds b SET search_text = build_search_text((SELECT a.name FROM apps a WHERE a.id = b.app_id), b.name, b.bundle_id, b.version_name, b.build_number, b.version_label)
        WHERE b.id = OLD.build_id;
      END IF;
      IF TG_OP IN ('INSERT', 'UPDATE') THEN
        UPDATE builds b SET search_text = build_search_text((SELECT a.name FROM apps a WHERE a.id = b.app_id), b.name, b.bundle_id, b.version_name, b.build_number, b.version_label)
          || build_provenance_search_text(NEW.branch, NEW.pull_request, NEW.commit_sha)
        WHERE b.id = NEW.build_id;
      END IF;
      RETURN NULL;
    END $$`,
  `CREATE TRIGGER build_provenance_search AFTER INSERT OR DELETE OR UPDATE OF build_id, branch, pull_request, commit_sha ON build_provenance
   FOR EACH ROW EXECUTE FUNCTION build_provenance_search()`,
  `UPDATE builds b SET search_text = b.search_text || build_provenance_search_text(p.branch, p.pull_request, p.commit_sha)
   FROM build_provenance p WHERE p.build_id = b.id`,
];

const POSTGRES_DOWN = [
  'DROP TRIGGER build_provenance_search ON build_provenance',
  'DROP FUNCTION build_provenance_search()',
  ...postgresBuildFunctions(false),
  `UPDATE builds b SET search_text = build_search_text(a.name, b.name, b.bundle_id, b.version_name, b.build_number, b.version_label)
   FROM apps a, build_provenance p WHERE a.id = b.app_id AND p.build_id = b.id`,
  'DROP FUNCTION build_provenance_search_text(text, integer, text)',
];

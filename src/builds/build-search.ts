import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import type { Database } from '../database/query-builder/tables';

/**
 * GET /builds?search= (docs/builds.md "Search"): the condition on `builds b` that every term is a
 * substring of one field of the build's search text. That text (migration BuildSearch, kept by
 * triggers whoever writes builds or renames an app) is the app's name, the build's name, bundle id,
 * version name, build number and label, ASCII-lowercased and one per line; terms never hold a line
 * break, so none spans two fields. PostgreSQL: `builds.search_text LIKE` through a pg_trgm GIN
 * index. SQLite: a GLOB on the FTS5 trigram table `build_search` (rowid = build id), which uses its
 * index for terms of three characters or more (GLOB, not LIKE: the table is case-sensitive so that
 * it folds exactly as the stored text and PostgreSQL do, ASCII only).
 *
 * `patterns` are the terms as searchPatterns() made them (stand-ins when prepared), one per term.
 */
export function searchCondition(db: Kysely<Database>, patterns: string[], postgres: boolean): Expression<SqlBool> {
  if (postgres) return sql<SqlBool>`${sql.join(patterns.map((pattern) => sql`${sql.ref('b.search_text')} like ${pattern} escape '\\'`), sql` and `)}`;
  return sql<SqlBool>`${sql.ref('b.id')} in ${searchMatches(db, patterns)}`;
}

/** SQLite: the ids (rowids of `build_search`) whose text matches every GLOB pattern. */
export function searchMatches(db: Kysely<Database>, patterns: string[]) {
  return patterns.reduce(
    (query, pattern) => query.where(sql<SqlBool>`${sql.ref('s.search_text')} glob ${pattern}`),
    db.selectFrom('build_search as s').select('s.rowid'),
  );
}

/** Each term as the dialect's pattern: LIKE's `%term%` on PostgreSQL, GLOB's `*term*` on SQLite (ASCII-folded, specials escaped). */
export function searchPatterns(terms: string[], postgres: boolean): string[] {
  return terms.map(asciiLowerCase).map((term) => (postgres ? `%${escapeLike(term)}%` : `*${escapeGlob(term)}*`));
}

/** LOWER() folds ASCII letters only on SQLite (and on PostgreSQL's COLLATE "C" text): terms are folded the same way. */
export function asciiLowerCase(text: string): string {
  return text.replace(/[A-Z]/g, (c) => c.toLowerCase());
}

export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** GLOB has no escape character: its specials are taken literally inside brackets. */
function escapeGlob(text: string): string {
  return text.replace(/[*?[]/g, (c) => `[${c}]`);
}

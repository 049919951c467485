import type { SqlParameters } from '../database/sql-parameters';

/**
 * GET /builds?search= (docs/builds.md "Search"): the condition on `builds b` that every term is a
 * substring of one field of the build's search text. That text (migration BuildSearch, kept by
 * triggers whoever writes builds or renames an app) is the app's name, the build's name, bundle id,
 * version name, build number and label, ASCII-lowercased and one per line; terms never hold a line
 * break, so none spans two fields. PostgreSQL: `builds.search_text LIKE` through a pg_trgm GIN
 * index. SQLite: a GLOB on the FTS5 trigram table `build_search` (rowid = build id), which uses its
 * index for terms of three characters or more (GLOB, not LIKE: the table is case-sensitive so that
 * it folds exactly as the stored text and PostgreSQL do, ASCII only).
 */
export function searchCondition(terms: string[], sql: SqlParameters, postgres: boolean): string {
  const lowered = terms.map(asciiLowerCase);
  if (postgres) return lowered.map((term) => `b.search_text LIKE ${sql.add(`%${escapeLike(term)}%`)} ESCAPE '\\'`).join(' AND ');
  const globs = lowered.map((term) => `s.search_text GLOB ${sql.add(`*${escapeGlob(term)}*`)}`);
  return `b.id IN (SELECT s.rowid FROM build_search s WHERE ${globs.join(' AND ')})`;
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

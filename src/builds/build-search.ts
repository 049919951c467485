import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import type { Database } from '../database/query-builder/tables';
import type { BuildPageQuery } from './builds.repository';

/*
 * GET /builds?search= (docs/builds.md "Search"): every term is a substring of one field of the
 * build's search text. That text (migration BuildSearch, kept by triggers whoever writes builds or
 * renames an app) is the app's name, the build's name, bundle id, version name, build number and
 * label, ASCII-lowercased and one per line; terms never hold a line break, so none spans two
 * fields. PostgreSQL keeps it in `builds.search_text` with a pg_trgm GIN index; SQLite in the FTS5
 * trigram table `build_search` (rowid = build id; case-sensitive so that it folds exactly as the
 * stored text and PostgreSQL do, ASCII only).
 *
 * A search's matches are tested one of two ways (docs/decisions.md#issue-24-search):
 * - `index`: gathered from the search index (PostgreSQL: `LIKE` through the GIN index; SQLite: a
 *   GLOB on the FTS5 table). Cheap for rare terms, which have few matches.
 * - `probe`: each build the list's sort index walk reaches is tested (PostgreSQL: `strpos` on its
 *   row, which no index answers; SQLite: `instr` on its row of the FTS5 table's content, by rowid),
 *   and the walk stops at the page's end. For terms that match a large share of the builds, where
 *   gathering and sorting tens of thousands of matches cost up to a second at 100,000 builds.
 */
export type SearchTest = 'index' | 'probe';

/**
 * How a search's page is read (chosen by searchMode() from the estimate):
 * - `gather`: the matches gathered by `index`, counted, and the page sorted out of them;
 * - `walk` (PostgreSQL): the page by walking the sort index with `probe` (the estimate is the total);
 * - `scan` (SQLite): as `walk`, the total counted by `probe` (a search alone: a scan of the FTS5
 *   content's short rows, cheaper than the index's GLOB for many matches).
 */
export type SearchMode = 'gather' | 'walk' | 'scan';

/** Terms under three characters have no trigram: no index answers them. */
export const MIN_INDEXED_TERM = 3;

/**
 * The condition on `builds b` that every term matches. `patterns` are searchPatterns()'
 * (`index`), `terms` the folded terms themselves (`probe`, and PostgreSQL's terms too short for the
 * index); stand-ins when prepared. `short[i]`: term i is under MIN_INDEXED_TERM characters.
 */
export function searchCondition(
  db: Kysely<Database>,
  mode: SearchTest,
  postgres: boolean,
  patterns: string[],
  terms: string[],
  short: boolean[],
): Expression<SqlBool> {
  if (postgres) {
    const text = sql.ref('b.search_text');
    // `strpos` where the index cannot help (a short term, or the walk), so no plan reads the GIN index for it.
    const each = terms.map((term, i) =>
      mode === 'index' && !short[i] ? sql`${text} like ${patterns[i]} escape '\\'` : sql`strpos(${text}, ${term}) > 0`,
    );
    return sql<SqlBool>`${sql.join(each, sql` and `)}`;
  }
  if (mode === 'probe') {
    // FTS5's own content table (`<table>_content`, id = rowid, c0 = the first column): one lookup by
    // rowid. The FTS5 table itself re-runs the GLOB's index lookup for every probe (seconds at 100,000 builds).
    const probe = terms.reduce(
      (query, term) => query.where(sql<SqlBool>`instr(${sql.ref('c.c0')}, ${term}) > 0`),
      db.selectFrom('build_search_content as c').select(sql.lit(1).as('one')).where('c.id', '=', sql.ref<number>('b.id')),
    );
    return sql<SqlBool>`exists ${probe}`;
  }
  return sql<SqlBool>`${sql.ref('b.id')} in ${searchMatches(db, patterns)}`;
}

/**
 * `q` (a substring of the version name, spec §4) also as a search term when it has a trigram: the
 * version name, folded as `q` is, is one line of the search text, so every build `q` matches holds
 * the term there and the search index narrows `q`'s candidates (docs/decisions.md#issue-27-text);
 * the version-name condition stays, so the matches are exactly `q`'s.
 */
export function withIndexedQ(query: BuildPageQuery): BuildPageQuery {
  if (!query.q || Array.from(query.q).length < MIN_INDEXED_TERM) return query;
  return { ...query, searchTerms: [...(query.searchTerms ?? []), query.q] };
}

/**
 * The key of a text list's counts (SearchTotals): what its total depends on, folded as the
 * statements fold it. Undefined for lists whose filters read other tables than builds (flags,
 * provenance), whose writes do not bump build_list_changes: those are counted every time.
 */
export function textCountsKey(query: BuildPageQuery): string | undefined {
  if (query.flagged || query.branch !== undefined || query.commit) return undefined;
  const terms = query.searchTerms?.map(asciiLowerCase) ?? null;
  return JSON.stringify([query.q === undefined ? null : asciiLowerCase(query.q), terms, query.platform ?? null, query.status ?? null, query.appId ?? null]);
}

/** SQLite, no other filter: how many builds match every term, from the FTS5 content alone (`probe`'s count). */
export function countProbed(db: Kysely<Database>, terms: string[]) {
  return terms.reduce(
    (query, term) => query.where(sql<SqlBool>`instr(${sql.ref('c.c0')}, ${term}) > 0`),
    db.selectFrom('build_search_content as c').select((eb) => eb.fn.countAll().as('total')),
  );
}

/** SQLite: the ids (rowids of `build_search`) whose text matches every GLOB pattern. */
function searchMatches(db: Kysely<Database>, patterns: string[]) {
  return patterns.reduce(
    (query, pattern) => query.where(sql<SqlBool>`${sql.ref('s.search_text')} glob ${pattern}`),
    db.selectFrom('build_search as s').select('s.rowid'),
  );
}

/** Each term as the dialect's pattern: LIKE's `%term%` on PostgreSQL, GLOB's `*term*` on SQLite (ASCII-folded, specials escaped). */
export function searchPatterns(terms: string[], postgres: boolean): string[] {
  return terms.map(asciiLowerCase).map((term) => (postgres ? `%${escapeLike(term)}%` : `*${escapeGlob(term)}*`));
}

/**
 * SQLite: an FTS5 query for the builds whose text holds trigrams covering every term (a superset
 * of the matches: the trigrams need not be adjacent), answered from the index's doclists without
 * reading any text: the estimate that chooses the mode. Trigrams that do not overlap (and the
 * term's last), since each costs a walk of its doclist. Undefined when no term has a trigram.
 */
export function trigramQuery(terms: string[]): string | undefined {
  const trigrams = new Set<string>();
  for (const term of terms.map(asciiLowerCase)) {
    const chars = Array.from(term);
    const last = chars.length - MIN_INDEXED_TERM;
    for (let i = 0; i <= last; i = i < last ? Math.min(i + MIN_INDEXED_TERM, last) : i + 1) trigrams.add(chars.slice(i, i + MIN_INDEXED_TERM).join(''));
  }
  // Each trigram a quoted string (quotes doubled): one token of the trigram tokenizer.
  return trigrams.size ? [...trigrams].map((trigram) => `"${trigram.replace(/"/g, '""')}"`).join(' AND ') : undefined;
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

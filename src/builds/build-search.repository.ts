import { sql, type Expression, type Kysely, type RawBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely';
import { MAX_ID } from '../common/validation/parse-id.pipe';
import type { Database } from '../database/query-builder/tables';
import type { BuildPageQuery } from './build-page';

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
 * One search term as a statement binds it: its needles (the folded term, and for `#17` or a commit
 * prefix the needle of that provenance line: needlesOf), each needle's pattern for the index, and
 * whether it is under MIN_INDEXED_TERM characters. Stand-ins when prepared.
 */
export interface BoundTerm {
  needles: string[];
  patterns: string[];
  short: boolean[];
}

/**
 * The condition on `builds b` that every term matches: one of its needles is in the search text.
 * `index` tests through searchPatterns()' patterns, `probe` by the needles themselves (and
 * PostgreSQL's needles too short for the index).
 */
export function searchCondition(db: Kysely<Database>, mode: SearchTest, postgres: boolean, terms: BoundTerm[]): Expression<SqlBool> {
  if (postgres) {
    const text = sql.ref('b.search_text');
    // `strpos` where the index cannot help (a short needle, or the walk), so no plan reads the GIN index for it.
    const each = terms.map((term) =>
      anyOf(term.needles.map((needle, i) => (mode === 'index' && !term.short[i] ? sql<SqlBool>`${text} like ${term.patterns[i]} escape '\\'` : sql<SqlBool>`strpos(${text}, ${needle}) > 0`))),
    );
    return sql<SqlBool>`${sql.join(each, sql` and `)}`;
  }
  if (mode === 'probe') {
    // FTS5's own content table (`<table>_content`, id = rowid, c0 = the first column): one lookup by
    // rowid. The FTS5 table itself re-runs the GLOB's index lookup for every probe (seconds at 100,000 builds).
    const probe = probed(db.selectFrom('build_search_content as c').select(sql.lit(1).as('one')).where('c.id', '=', sql.ref<number>('b.id')), terms.map((term) => term.needles));
    return sql<SqlBool>`exists ${probe}`;
  }
  return sql<SqlBool>`${sql.ref('b.id')} in ${searchMatches(db, terms.map((term) => term.patterns))}`;
}

/** `a or b`, in parentheses (a term with one needle: the needle's test alone). */
function anyOf(tests: RawBuilder<SqlBool>[]): RawBuilder<SqlBool> {
  return tests.length === 1 ? tests[0] : sql<SqlBool>`(${sql.join(tests, sql` or `)})`;
}

/** SQLite: `qb` (over the FTS5 content `c`) where every term has a needle in the text. */
function probed<Q extends SelectQueryBuilder<any, any, any>>(qb: Q, needles: string[][]): Q {
  return needles.reduce((query, each) => query.where(anyOf(each.map((needle) => sql<SqlBool>`instr(${sql.ref('c.c0')}, ${needle}) > 0`))) as Q, qb);
}

/** Longest prefix of a commit a search term can be: a SHA-256 commit id. */
const COMMIT_MAX = 64;
/** Shortest prefix of a commit a search term finds (`git log --oneline`'s abbreviation). */
export const COMMIT_PREFIX_MIN = 7;
const COMMIT_PREFIX = new RegExp(`^[0-9a-fA-F]{${COMMIT_PREFIX_MIN},${COMMIT_MAX}}$`);
/** The provenance lines' forms in the search text (migration BuildSearchProvenance). */
const PULL_REQUEST_MARK = '\x1f';
const HEX = '0123456789abcdef';
const COMMIT_LETTERS = 'ABCDEFGHIJKLMNOP';

/**
 * What a term matches in the search text: the term itself (ASCII-folded), anywhere in a line; a
 * term `#17` also the pull request line of 17 exactly; a term of 7 to 64 hex characters also the
 * commit line starting with it. Those two lines are written so that no folded term matches them
 * otherwise (migration BuildSearchProvenance): a short number never matches inside a SHA.
 */
export function needlesOf(term: string): string[] {
  const folded = asciiLowerCase(term);
  const pullRequest = /^#(\d{1,10})$/.exec(term);
  if (pullRequest && Number(pullRequest[1]) >= 1 && Number(pullRequest[1]) <= MAX_ID) {
    return [folded, `${PULL_REQUEST_MARK}${Number(pullRequest[1])}${PULL_REQUEST_MARK}`];
  }
  if (COMMIT_PREFIX.test(term)) return [folded, `\n${[...folded].map((digit) => COMMIT_LETTERS[HEX.indexOf(digit)]).join('')}`];
  return [folded];
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
 * The key of a list's counts kept in SearchTotals: what its total depends on, folded as the
 * statements fold it. Undefined for lists filtered by what no trigger bumps build_list_changes
 * for (flags, the gate's column): those are counted every time. A provenance change does bump it:
 * it rewrites the build's search text (migration 1700000028700).
 */
export function textCountsKey(query: BuildPageQuery): string | undefined {
  if (query.flagged || query.gate) return undefined;
  const terms = query.searchTerms?.map(asciiLowerCase) ?? null;
  const provenance = [query.branch ?? null, query.commit ?? null, query.pullRequest ?? null];
  return JSON.stringify([query.q === undefined ? null : asciiLowerCase(query.q), terms, query.platform ?? null, query.status ?? null, query.appId ?? null, ...provenance]);
}

/** SQLite, no other filter: how many builds match every term, from the FTS5 content alone (`probe`'s count). */
export function countProbed(db: Kysely<Database>, needles: string[][]) {
  return probed(db.selectFrom('build_search_content as c').select((eb) => eb.fn.countAll().as('total')), needles);
}

/** SQLite: the ids (rowids of `build_search`) whose text matches, for every term, one of its GLOB patterns. */
function searchMatches(db: Kysely<Database>, patterns: string[][]) {
  return patterns.reduce(
    (query, each) => query.where(anyOf(each.map((pattern) => sql<SqlBool>`${sql.ref('s.search_text')} glob ${pattern}`))),
    db.selectFrom('build_search as s').select('s.rowid'),
  );
}

/** A needle as the dialect's pattern: LIKE's `%needle%` on PostgreSQL, GLOB's `*needle*` on SQLite (specials escaped). */
export function searchPattern(needle: string, postgres: boolean): string {
  return postgres ? `%${escapeLike(needle)}%` : `*${escapeGlob(needle)}*`;
}

/**
 * SQLite: an FTS5 query for the builds whose text holds trigrams covering every term (a superset
 * of the matches: the trigrams need not be adjacent), answered from the index's doclists without
 * reading any text: the estimate that chooses the mode. Trigrams that do not overlap (and the
 * needle's last), since each costs a walk of its doclist; a term of two needles (needlesOf) asks
 * for the trigrams of either. Undefined when no term has a trigram (a term with a needle that has
 * none asks for nothing).
 */
export function trigramQuery(terms: string[]): string | undefined {
  // Each trigram a quoted string (quotes doubled): one token of the trigram tokenizer.
  const quoted = (trigrams: string[]) => trigrams.map((trigram) => `"${trigram.replace(/"/g, '""')}"`);
  const parts = new Set<string>();
  for (const needles of terms.map(needlesOf)) {
    const each = needles.map(trigramsOf);
    if (each.some((trigrams) => !trigrams.length)) continue;
    if (each.length === 1) quoted(each[0]).forEach((trigram) => parts.add(trigram));
    else parts.add(`(${each.map((trigrams) => `(${quoted(trigrams).join(' AND ')})`).join(' OR ')})`);
  }
  return parts.size ? [...parts].join(' AND ') : undefined;
}

/** The trigrams of a needle that cover it without overlapping (and its last one); none under three characters. */
function trigramsOf(needle: string): string[] {
  const chars = Array.from(needle);
  const last = chars.length - MIN_INDEXED_TERM;
  const trigrams: string[] = [];
  for (let i = 0; i <= last; i = i < last ? Math.min(i + MIN_INDEXED_TERM, last) : i + 1) trigrams.push(chars.slice(i, i + MIN_INDEXED_TERM).join(''));
  return trigrams;
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

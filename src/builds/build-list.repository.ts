import { sql, type Expression, type ExpressionBuilder, type Kysely, type RawBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely';
import { DAY_MS } from '../database/migrations/1700000027000-BuildDayCounts';
import type { BuildsTable, Database } from '../database/query-builder/tables';
import { asciiLowerCase, BoundTerm, countProbed, escapeLike, MIN_INDEXED_TERM, needlesOf, searchCondition, SearchMode, searchPattern, SearchTest, trigramQuery } from './build-search.repository';
import type { BuildPageQuery } from './build-page';

/*
 * The statements of GET /builds (docs/decisions.md#item-3, #p1), each prepared once per shape
 * (QueryBuilder.prepare): the shape is the sort, the direction, which filters are set, the search's
 * terms (how many, which are too short for the index) and how a search is read (SearchMode); the
 * values are bound per request. test/builds/list-plans holds their plans to an index walk (a search
 * with few matches: to the search index).
 */

/** The values a page's statements bind (each used only by the shapes that filter on it). */
export interface PageValues {
  /** The `?q=` term as a LIKE pattern (ASCII-folded, wildcards escaped). */
  pattern: string | undefined;
  platform: string | undefined;
  /** The status filter's stored value: one of the four (`untriaged` binds nothing). */
  status: string | undefined;
  /** build_counts' key of the status filter ('' for untriaged). */
  statusKey: string | undefined;
  appId: number | undefined;
  /** Provenance filters (issues 25, 40): the branch, exact; the pull request; the commit as a `prefix%` pattern. */
  branch: string | undefined;
  pullRequest: number | undefined;
  commitPattern: string | undefined;
  /** The commit prefix's range: [commitFrom, commitTo). */
  commitFrom: string | undefined;
  commitTo: string | undefined;
  /** The release gate's state (builds.gate_state). */
  gate: string | undefined;
  limit: number;
  offset: number;
  /** SQLite: trigramQuery() of the search's terms (the estimate's FTS5 query), if any has a trigram. */
  trigrams: string | undefined;
  /**
   * The search's needles (needlesOf: `term0`, `term1`, …, and a term's second needle `alt0`, …) and
   * their patterns (`search0`, `altSearch0`, …): a prepared statement binds values by name.
   */
  [search: `search${number}` | `altSearch${number}`]: string;
  [term: `term${number}` | `alt${number}`]: string;
}

/** The names the page's values give needle `j` of search term `i`, and its pattern. */
const needleName = (i: number, j: number) => (j ? (`alt${i}` as const) : (`term${i}` as const));
const patternName = (i: number, j: number) => (j ? (`altSearch${i}` as const) : (`search${i}` as const));

/** The search's terms as the statements bind them (from `v`: stand-ins when prepared). */
function boundTerms(v: PageValues, query: BuildPageQuery): BoundTerm[] {
  return (query.searchTerms ?? []).map((term, i) => {
    const needles = needlesOf(term);
    return {
      needles: needles.map((_, j) => v[needleName(i, j)]),
      patterns: needles.map((_, j) => v[patternName(i, j)]),
      short: needles.map((needle) => Array.from(needle).length < MIN_INDEXED_TERM),
    };
  });
}

export function pageValues(query: BuildPageQuery, postgres: boolean): PageValues {
  const values: PageValues = {
    pattern: query.q ? `%${escapeLike(asciiLowerCase(query.q))}%` : undefined,
    platform: query.platform,
    status: query.status === 'untriaged' ? undefined : query.status,
    statusKey: query.status === 'untriaged' ? '' : query.status,
    appId: query.appId,
    branch: query.branch,
    pullRequest: query.pullRequest,
    commitPattern: query.commit ? `${query.commit}%` : undefined,
    commitFrom: query.commit,
    commitTo: query.commit ? `${query.commit}g` : undefined,
    gate: query.gate,
    limit: query.limit,
    offset: query.page * query.limit,
    trigrams: postgres || !query.searchTerms ? undefined : trigramQuery(query.searchTerms),
  };
  query.searchTerms?.forEach((term, i) =>
    needlesOf(term).forEach((needle, j) => {
      values[needleName(i, j)] = needle;
      values[patternName(i, j)] = searchPattern(needle, postgres);
    }),
  );
  return values;
}

/** Everything the page's statements branch on (QueryBuilder.prepare's key). */
export function shapeOf(query: BuildPageQuery): string {
  const filters = [
    query.q ? 'q' : '',
    query.platform ? 'p' : '',
    query.status === 'untriaged' ? 'u' : query.status ? 's' : '',
    query.appId !== undefined ? 'a' : '',
    query.flagged ? 'f' : '',
    query.branch !== undefined ? 'b' : '',
    query.commit ? 'c' : '',
    query.pullRequest !== undefined ? 'r' : '',
    query.gate ? 'g' : '',
    // Per term its needles, and per needle whether it is long enough for the index (PostgreSQL's statements differ), and whether any is (SQLite's estimate).
    query.searchTerms ? `t${query.searchTerms.map((term) => needlesOf(term).map((needle) => (Array.from(needle).length < MIN_INDEXED_TERM ? 's' : 'l')).join('')).join('.')}` : '',
  ];
  return `${query.sort} ${query.dir} ${filters.join('')}`;
}

/**
 * The page's ids in the list's order, with the count of every match alongside as a scalar
 * sub-select (evaluated once; one round trip less on PostgreSQL). The list without a search, and a
 * search in `walk` or `scan` mode, walk the sort column's index and stop at the page's end; a
 * PostgreSQL search leaves the total out (`withTotal`), having counted it exactly for its estimate.
 */
export function pageIds(db: Kysely<Database>, v: PageValues, query: BuildPageQuery, postgres: boolean, mode: SearchMode = 'gather', withTotal = true, fromEnd = false) {
  // Unset values sort last either way, on SQLite and PostgreSQL alike; id breaks ties so pages are
  // stable. uploaded_at is never null, so it needs no NULLS clause (and keeps to its index).
  const nullsLast = query.sort !== 'uploaded_at';
  if ((query.searchTerms && mode === 'gather') || (gathersProvenance(query) && !query.searchTerms)) {
    // Matches gathered from the search index once (and counted there), then the page sorted out of
    // them. Left to itself PostgreSQL's generic plan would walk the sort index and filter each row,
    // which reads every build for a rare term (test/builds/list-plans). A commit prefix or a pull
    // request too: its few builds from the provenance index, where a walk would probe every build for them.
    return db
      .with(
        (cte) => cte('m').materialized(),
        (w) => filtered(w.selectFrom('builds as b').select(['b.id', `b.${query.sort} as k`]), db, v, query, postgres, 'index'),
      )
      .selectFrom('m')
      .select('m.id')
      .$if(withTotal, (qb) => qb.select((eb) => eb.selectFrom('m').select((c) => c.fn.countAll().as('n')).as('total')))
      .orderBy('m.k', (order) => (nullsLast ? order[query.dir]().nullsLast() : order[query.dir]()))
      .orderBy('m.id', query.dir)
      .limit(v.limit)
      .offset(v.offset);
  }
  const ids = db.selectFrom('builds as b').select('b.id');
  // From the far end: the list's order reversed (NULLs first), the same indexes walked backwards.
  const dir = fromEnd ? (query.dir === 'asc' ? 'desc' : 'asc') : query.dir;
  const ordered = filtered(withTotal ? ids.select(totalOf(db, v, query, postgres, mode).as('total')) : ids, db, v, query, postgres, 'probe')
    .orderBy(`b.${query.sort}`, (order) => (nullsLast ? (fromEnd ? order[dir]().nullsFirst() : order[dir]().nullsLast()) : order[dir]()))
    .orderBy('b.id', dir);
  if (!fromEnd) return ordered.limit(v.limit).offset(v.offset);
  // The rows after the page are skipped instead of those before it, counted in the same statement
  // (one snapshot, like the total beside it); never a negative LIMIT, which SQLite reads as none.
  const total = totalOf(db, v, query, postgres, mode);
  const [least, greatest] = postgres ? [sql.raw('least'), sql.raw('greatest')] : [sql.raw('min'), sql.raw('max')];
  return ordered
    .limit(sql<number>`${greatest}(0, ${least}(${v.limit}, (${total}) - ${v.offset}))`)
    .offset(sql<number>`${greatest}(0, (${total}) - ${v.offset} - ${v.limit})`);
}

/**
 * A deep page of the list by upload time, whose filters build_day_counts counts (`seeksByDay`), in
 * one statement (one snapshot): the days are summed from the list's first day (`walk`, a few
 * hundred count rows a day through the table's key; one row a day of build_day_totals unfiltered) until the day holding the page's first row
 * (`seek`); the index is then walked from that day's end only, and the rows of the days before it
 * are taken off the OFFSET. A page of a million builds skips at most a day's builds instead of
 * every build before it (docs/decisions.md#issue-27-pages). `fromEnd` reads the page from the
 * other end, as pageIds does (skip and take counted from the total, in the statement).
 */
export function seekPageIds(db: Kysely<Database>, v: PageValues, query: BuildPageQuery, postgres: boolean, fromEnd: boolean) {
  const dir = fromEnd ? (query.dir === 'asc' ? 'desc' : 'asc') : query.dir;
  const [least, greatest] = postgres ? [sql.raw('least'), sql.raw('greatest')] : [sql.raw('min'), sql.raw('max')];
  // Counted once, in `want`: the total beside the page, and from it a far-end page's skip and take.
  const total = sql.ref('want.total');
  const skip = fromEnd ? sql`${greatest}(0, ${total} - ${v.offset} - ${v.limit})` : sql`${v.offset}`;
  const take = fromEnd ? sql`${greatest}(0, ${least}(${v.limit}, ${total} - ${v.offset}))` : sql`${v.limit}`;
  // The day after `day` in the walk's order (NULL past the last one), and the list's builds on a day.
  const [first, before] = dir === 'desc' ? [sql.raw('max'), sql.raw('<')] : [sql.raw('min'), sql.raw('>')];
  const conditions = [
    ...(query.platform !== undefined ? [sql` and t.platform = ${v.platform}`] : []),
    ...(query.status !== undefined ? [sql` and t.status_key = ${v.statusKey}`] : []),
    ...(query.appId !== undefined ? [sql` and t.app_id = ${v.appId}`] : []),
  ];
  // Unfiltered, a day is one row of build_day_totals, not ~227 of build_day_counts (docs/decisions.md#issue-27-day-totals).
  const days = sql.table(conditions.length ? 'build_day_counts' : 'build_day_totals');
  const next = (day: RawBuilder<unknown>) => sql`(select ${first}(x.day) from ${days} x where x.day ${before} ${day})`;
  const onDay = (day: RawBuilder<unknown>) =>
    sql`(select cast(coalesce(sum(t.n), 0) as bigint) from ${days} t where t.day = ${day}${sql.join(conditions, sql``)})`;
  // `before` is how many of the list's builds lie on the days walked before `day`.
  const walk = sql`select d.day, cast(0 as bigint), ${onDay(sql`d.day`)} from (select ${first}(day) as day from ${days}) d
    union all
    select ${next(sql`w.day`)}, w.before + w.here, ${onDay(next(sql`w.day`))} from walk w
    where w.day is not null and w.before + w.here <= (select skip from want)`;
  const bound =
    dir === 'desc'
      ? sql<SqlBool>`${sql.ref('b.uploaded_at')} < ((select day from seek) + 1) * ${sql.lit(DAY_MS)}`
      : sql<SqlBool>`${sql.ref('b.uploaded_at')} >= (select day from seek) * ${sql.lit(DAY_MS)}`;
  // Kysely writes WITH RECURSIVE when the first expression is; only `walk` refers to itself.
  const page = db
    .withRecursive('want', () => sql<{ total: number; skip: number; take: number }>`(select want.total, cast(${skip} as bigint) as skip, cast(${take} as bigint) as take from ${totalOf(db, v, query, postgres)} as want)`)
    .withRecursive('walk(day, before, here)', () => sql<{ day: number; before: number; here: number }>`(${walk})`)
    .with('seek', () => sql<{ day: number; before: number }>`(select day, before from walk where day is not null and before + here > (select skip from want))`)
    .selectFrom('builds as b')
    .select((eb) => ['b.id', eb.selectFrom('want').select('want.total').as('total')]);
  return filtered(page, db, v, query, postgres, 'probe')
    .where(bound)
    .orderBy('b.uploaded_at', dir)
    .orderBy('b.id', dir)
    .limit(sql<number>`(select take from want)`)
    .offset(sql<number>`(select skip from want) - coalesce((select before from seek), 0)`);
}

/** A deep page that seekPageIds reads: by upload time, with only the filters build_day_counts counts. */
export function seeksByDay(query: BuildPageQuery): boolean {
  return query.sort === 'uploaded_at' && countedTotal(query);
}

/** The list's total comes from build_counts (no filter that only the rows themselves answer). */
export function countedTotal(query: BuildPageQuery): boolean {
  return !query.q && !query.searchTerms && !query.flagged && query.branch === undefined && !query.commit && query.pullRequest === undefined && !query.gate;
}

/**
 * A list whose total only its rows answer, read like a text list (counts first, kept while no write
 * changed them; then the page without its count): a branch beside a spec filter. At a million
 * builds the total of `branch=main&status=Done` probed the branch of every Done build per answer
 * (0.3–0.6 s on PostgreSQL).
 */
export function keptRowsTotal(query: BuildPageQuery): boolean {
  const other = Boolean(query.platform || query.status) || query.appId !== undefined;
  return query.branch !== undefined && other && !gathersProvenance(query) && !query.flagged && !query.gate;
}

/** A commit prefix or a pull request: a handful of builds, read from the provenance indexes rather than probed per build. */
function gathersProvenance(query: BuildPageQuery): boolean {
  return Boolean(query.commit) || query.pullRequest !== undefined;
}

/** How much more a match gathered by SQLite's GLOB costs than a build walked (searchMode). */
const SQLITE_GATHER_WEIGHT = 16;

/**
 * A `q` or `search` list's counts (SearchTotals' TextCounts) in one statement: the number of builds
 * and the exact total, which chooses how its pages are read (searchMode). PostgreSQL: the matches
 * counted through the trigram index (terms of three characters or more; shorter ones by `strpos`).
 * SQLite: first the builds whose search text holds all the terms' trigrams (from the FTS5 index
 * alone, a superset; every build when no term has one), which chooses how the matches are counted:
 * by the index's GLOB when those candidates are under a tenth of the builds, else by testing each
 * build's text (`scan`, cheaper than the GLOB's recheck of most builds). Only the CASE's branch
 * taken is evaluated. `q` alone (under three characters, so no index; withIndexedQ) is counted over
 * the builds.
 */
export function textCounts(db: Kysely<Database>, v: PageValues, query: BuildPageQuery, postgres: boolean) {
  const builds = db.selectFrom('build_counts as c').select((eb) => eb.fn.coalesce(eb.fn.sum('c.n'), eb.lit(0)).as('n'));
  if (!query.searchTerms || postgres) {
    return db.selectNoFrom([totalOf(db, v, query, postgres, 'gather').as('total'), builds.as('builds')]);
  }
  const candidates = trigramQuery(query.searchTerms)
    ? db.selectFrom('build_search as s').select((eb) => eb.fn.countAll().as('n')).where(sql<SqlBool>`${sql.ref('s.build_search')} match ${v.trigrams}`)
    : builds;
  const [matches, all] = [sql.ref<number>('e.matches'), sql.ref<number>('e.builds')];
  return db
    .with(
      (cte) => cte('e').materialized(),
      (w) => w.selectNoFrom([candidates.as('matches'), builds.as('builds')]),
    )
    .selectFrom('e')
    .select('e.builds')
    .select(
      sql<number>`case when ${matches} = 0 then 0 when ${matches} * ${sql.lit(10)} <= ${all} then (${totalOf(db, v, query, postgres, 'gather')}) else (${totalOf(db, v, query, postgres, 'scan')}) end`.as('total'),
    );
}

/**
 * Walk the sort index when that costs less than gathering the `matches` (the exact total) and
 * sorting them: a walk reads about (offset + limit) * builds / matches builds. On PostgreSQL a
 * gathered match costs about what a walked build does. On SQLite a walked build (an `instr` on its
 * content row, by rowid) costs ~0.2 µs at a million builds, while the GLOB that gathers pays for the
 * doclists of all the term's trigrams, which grow with the builds and not with the matches: 29 ms
 * of CPU for `feature/branch-123`'s 1,805 matches (trigrams 300,000 builds share) against 2.3 ms
 * for the walk of ~11,000 builds (docs/decisions.md#issue-27-text). So SQLite gathers only when
 * the walk would read 16 times the matches.
 */
export function searchMode(matches: number, builds: number, pageEnd: number, postgres: boolean): SearchMode {
  if (matches * matches * (postgres ? 1 : SQLITE_GATHER_WEIGHT) <= pageEnd * builds) return 'gather';
  return postgres ? 'walk' : 'scan';
}

/** The statement that counts every match: the maintained counts, or the rows themselves for a search term. */
export function totalOf(db: Kysely<Database>, v: PageValues, query: BuildPageQuery, postgres: boolean, mode: SearchMode = 'gather') {
  const test: SearchTest = mode === 'scan' ? 'probe' : 'index';
  // Flagged builds are counted from their own table (its rows alone when nothing else filters:
  // every row has its build), the builds then read by primary key: a cross join keeps SQLite from
  // walking every build and probing build_flags for each (0.4 s at a million builds, bench/results/2026-11-27-665943d-million.md).
  const noOtherFilter = !query.q && !query.searchTerms && !query.platform && !query.status && query.appId === undefined;
  if (query.flagged) {
    const flags = db.selectFrom('build_flags as g');
    if (noOtherFilter && query.branch === undefined && !gathersProvenance(query)) return flags.select((eb) => eb.fn.countAll().as('total'));
    return filtered(
      flags.crossJoin('builds as b').where('b.id', '=', sql.ref<number>('g.build_id')).select((eb) => eb.fn.countAll().as('total')),
      db,
      v,
      query,
      postgres,
      test,
    );
  }
  // A branch alone: its kept count (build_branch_counts, one row; counting `main`'s 309,753 index
  // entries cost 8 ms of CPU on SQLite, docs/decisions.md#issue-27-branch).
  if (query.branch !== undefined && !gathersProvenance(query) && noOtherFilter) {
    return db.selectFrom('build_branch_counts as bc').select((eb) => eb.fn.coalesce(eb.fn.sum('bc.n'), eb.lit(0)).as('total')).where('bc.branch', '=', v.branch!);
  }
  // A commit or a pull request (with or without a branch) alone: its index only. With other filters the builds are counted,
  // probing the branch per build (a broad branch read by primary key from its index costs more: random reads).
  if (gathersProvenance(query) && noOtherFilter) {
    return provenanceMatches(db.selectFrom('build_provenance as pv'), v, query).select((eb) => eb.fn.countAll().as('total'));
  }
  // SQLite, a search alone: its content's rows only (a scan of short rows, no builds row read).
  const alone = !query.q && !query.platform && !query.status && query.appId === undefined && query.branch === undefined && !gathersProvenance(query);
  if (query.searchTerms && mode === 'scan' && alone) return countProbed(db, boundTerms(v, query).map((term) => term.needles));
  if (query.q || query.searchTerms || query.branch !== undefined || gathersProvenance(query) || query.gate) return filtered(db.selectFrom('builds as b').select((eb) => eb.fn.countAll().as('total')), db, v, query, postgres, test);
  // build_counts keeps an unset status under ''.
  return db
    .selectFrom('build_counts as c')
    .select((eb) => eb.fn.coalesce(eb.fn.sum('c.n'), eb.lit(0)).as('total'))
    .$if(query.platform !== undefined, (qb) => qb.where('c.platform', '=', v.platform!))
    .$if(query.status !== undefined, (qb) => qb.where('c.status_key', '=', v.statusKey!))
    .$if(query.appId !== undefined, (qb) => qb.where('c.app_id', '=', v.appId!));
}

/** The list's filters on `builds b`, each a condition added to `qb`'s WHERE. */
function filtered<Q extends SelectQueryBuilder<any, any, any>>(
  qb: Q,
  db: Kysely<Database>,
  v: PageValues,
  query: BuildPageQuery,
  postgres: boolean,
  test: SearchTest,
): Q {
  const conditions: Expression<SqlBool>[] = [];
  const b = (column: keyof BuildsTable) => sql.ref<number>(`b.${column}`);
  // LOWER() folds ASCII letters only on SQLite (and on PostgreSQL's COLLATE "C" column): the term is folded the same way.
  if (query.q) conditions.push(sql<SqlBool>`lower(${b('version_name')}) like ${v.pattern} escape '\\'`);
  if (query.searchTerms) conditions.push(searchCondition(db, test, postgres, boundTerms(v, query)));
  if (query.platform) conditions.push(sql<SqlBool>`${b('platform')} = ${v.platform}`);
  if (query.status === 'untriaged') conditions.push(sql<SqlBool>`${b('status_label')} is null`);
  else if (query.status) conditions.push(sql<SqlBool>`${b('status_label')} = ${v.status}`);
  if (query.appId !== undefined) conditions.push(sql<SqlBool>`${b('app_id')} = ${v.appId}`);
  // The gate's state is a column of builds (IDX_builds_gate_uploaded): checked on the row the walk reads, or the index's range by upload time.
  if (query.gate) conditions.push(sql<SqlBool>`${b('gate_state')} = ${v.gate}`);
  // A probe per row of the list's index walk (not `IN (…)`, which would sort the flagged builds).
  if (query.flagged) conditions.push(sql<SqlBool>`exists ${probeOnly(db.selectFrom('build_flags as f').select(sql.lit(1).as('one')).where('f.build_id', '=', b('id')), postgres, test)}`);
  // Provenance (a row per build that has any): probed by primary key, like the flags.
  const provenance = () => db.selectFrom('build_provenance as pv').select(sql.lit(1).as('one')).where('pv.build_id', '=', b('id'));
  if (query.branch !== undefined) conditions.push(sql<SqlBool>`exists ${probeOnly(provenance().where(sql<SqlBool>`${sql.ref('pv.branch')} = ${v.branch}`), postgres, test)}`);
  // A commit prefix or a pull request matches a handful of builds: gathered through its index (`index`), else probed.
  if (gathersProvenance(query) && test === 'index') {
    conditions.push(sql<SqlBool>`${b('id')} in ${provenanceMatches(db.selectFrom('build_provenance as pv').select('pv.build_id'), v, query)}`);
  } else {
    if (query.commit) conditions.push(sql<SqlBool>`exists ${provenance().where(sql<SqlBool>`${sql.ref('pv.commit_sha')} like ${v.commitPattern}`)}`);
    if (query.pullRequest !== undefined) conditions.push(sql<SqlBool>`exists ${provenance().where(sql<SqlBool>`${sql.ref('pv.pull_request')} = ${v.pullRequest}`)}`);
  }
  return conditions.reduce((filtering, condition) => filtering.where(condition) as Q, qb);
}

/**
 * PostgreSQL, a page's walk (`probe`): the EXISTS stays a probe per build of the sort index's walk.
 * Left to itself the planner makes it a semi-join, and its generic plan hashed every flagged build
 * or `main` build and sorted the joined builds (0.9–2.6 s at a million builds,
 * docs/decisions.md#issue-27-pages); OFFSET 0 keeps a sub-select from being pulled up into a join.
 */
function probeOnly<Q extends SelectQueryBuilder<any, any, any>>(probe: Q, postgres: boolean, test: SearchTest): Q {
  return postgres && test === 'probe' ? (probe.offset(sql.lit(0)) as Q) : probe;
}

/**
 * The provenance filters on `build_provenance pv`, through its indexes: the branch by equality, the
 * commit prefix as the range [prefix, prefix + 'g') beside its LIKE (stored commits are lower-case
 * hex: the range holds exactly the LIKE's matches, and neither database's LIKE uses a plain index).
 */
function provenanceMatches<Q extends SelectQueryBuilder<any, any, any>>(qb: Q, v: PageValues, query: BuildPageQuery): Q {
  const pv = (column: string) => sql.ref<string>(`pv.${column}`);
  let matching = qb;
  if (query.branch !== undefined) matching = matching.where(sql<SqlBool>`${pv('branch')} = ${v.branch}`) as Q;
  if (query.pullRequest !== undefined) matching = matching.where(sql<SqlBool>`${pv('pull_request')} = ${v.pullRequest}`) as Q;
  if (query.commit) {
    matching = matching.where(
      sql<SqlBool>`${pv('commit_sha')} >= ${v.commitFrom} and ${pv('commit_sha')} < ${v.commitTo} and ${pv('commit_sha')} like ${v.commitPattern}`,
    ) as Q;
  }
  return matching;
}

/**
 * These builds (one stand-in per id, `count` of them) with the upload entry (the first history
 * entry, by the build_id index), its author's live account (by primary key), whether the build
 * has an icon, its flags and its provenance (by primary key; no row when the upload gave none),
 * as ListedValues in order. No ORDER BY: the ids already are the page's order, and sorting in SQL
 * would be a sort step per request (test/builds/list-plans).
 */
export function listed(db: Kysely<Database>, ids: number[], count: number, postgres: boolean) {
  const page = Array.from({ length: count }, (_, i) => ids[i]);
  return postgres ? listedByLaterals(db, page) : listedByJoins(db, page);
}

/**
 * SQLite: plain joins, which its planner always makes nested loops of index lookups per row. The
 * upload entry is the history row whose id is the build's least (the build_id index's MIN).
 */
function listedByJoins(db: Kysely<Database>, page: number[]) {
  return db
    .selectFrom('builds as b')
    .leftJoin('build_status_changes as s', (join) =>
      join.on((eb) =>
        eb('s.id', '=', eb.selectFrom('build_status_changes as f').select((f) => f.fn.min('f.id').as('first')).whereRef('f.build_id', '=', 'b.id')),
      ),
    )
    .leftJoin('users as u', 'u.id', 's.changed_by_id')
    .leftJoin('build_provenance as p', 'p.build_id', 'b.id')
    .select([
      ...SHOWN_COLUMNS,
      's.id as upload_id',
      's.changed_by_id as uploader_id',
      's.changed_by_display_name as kept_name',
      's.changed_by_email as kept_email',
      'u.display_name as user_name',
      'u.email as user_email',
    ])
    .select(iconAndFlags)
    .select(['p.build_id as provenance_id', 'p.commit_sha', 'p.branch', 'p.repository', 'p.pull_request', 'p.ci_url', 'p.changelog'])
    .where('b.id', 'in', page);
}

/**
 * PostgreSQL: the upload entry (with its author) and the provenance as LATERAL sub-selects, each
 * read for its build by index. As joins, the generic plan hashed the whole of `build_status_changes`
 * and of `build_provenance` for every page while they held a few thousand rows (cheaper by its
 * estimate than 20 index probes): 2.4 ms a page in the soak by pg_stat_statements, growing with the
 * history (docs/decisions.md#issue-27-listed-laterals). The LIMIT keeps each a sub-select
 * run per build: a plain one would be pulled up into a join again.
 */
function listedByLaterals(db: Kysely<Database>, page: number[]) {
  return db
    .selectFrom('builds as b')
    .leftJoinLateral(
      (eb) =>
        eb
          .selectFrom('build_status_changes as f')
          .leftJoin('users as u', 'u.id', 'f.changed_by_id')
          .select([
            'f.id as upload_id',
            'f.changed_by_id as uploader_id',
            'f.changed_by_display_name as kept_name',
            'f.changed_by_email as kept_email',
            'u.display_name as user_name',
            'u.email as user_email',
          ])
          .whereRef('f.build_id', '=', 'b.id')
          .orderBy('f.id')
          .limit(sql.lit(1))
          .as('s'),
      (join) => join.onTrue(),
    )
    .leftJoinLateral(
      (eb) =>
        eb
          .selectFrom('build_provenance as pv')
          .select(['pv.build_id', 'pv.commit_sha', 'pv.branch', 'pv.repository', 'pv.pull_request', 'pv.ci_url', 'pv.changelog'])
          .whereRef('pv.build_id', '=', 'b.id')
          .limit(sql.lit(1))
          .as('p'),
      (join) => join.onTrue(),
    )
    .select([...SHOWN_COLUMNS, 's.upload_id', 's.uploader_id', 's.kept_name', 's.kept_email', 's.user_name', 's.user_email'])
    .select(iconAndFlags)
    .select(['p.build_id as provenance_id', 'p.commit_sha', 'p.branch', 'p.repository', 'p.pull_request', 'p.ci_url', 'p.changelog'])
    .where('b.id', 'in', page);
}

/** Whether the build has an icon, and its flags: a probe of each table per build. */
function iconAndFlags(eb: ExpressionBuilder<Database & { b: BuildsTable }, 'b'>) {
  return [
    eb.exists(eb.selectFrom('build_icons as i').select((i) => i.lit(1).as('one')).whereRef('i.build_id', '=', 'b.id')).as('has_icon'),
    eb.selectFrom('build_flags as g').select('g.flags').whereRef('g.build_id', '=', 'b.id').as('flags'),
  ];
}

/** The columns of ShownBuild, in ListedValues' order. */
const SHOWN_COLUMNS = [
  'b.id',
  'b.app_id',
  'b.name',
  'b.version_name',
  'b.build_number',
  'b.version_label',
  'b.status_label',
  'b.platform',
  'b.bundle_id',
  'b.uploaded_at',
  'b.completed_at',
  'b.delete_after',
] as const;

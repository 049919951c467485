import { sql, type Expression, type Kysely, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { BuildsTable, Database } from '../database/query-builder/tables';
import { asciiLowerCase, escapeLike, searchCondition, searchPatterns } from './build-search';
import type { BuildPageQuery } from './builds.repository';

/*
 * The statements of GET /builds (docs/decisions.md#item-3, #p1), each prepared once per shape
 * (QueryBuilder.prepare): the shape is the sort, the direction, which filters are set and how many
 * search terms; the values are bound per request. test/builds/list-plans holds their plans to an
 * index walk (a search: to the search index).
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
  limit: number;
  offset: number;
  /** The search's patterns, one per term (`search0`, `search1`, …): a prepared statement binds values by name. */
  [search: `search${number}`]: string;
}

export function pageValues(query: BuildPageQuery, postgres: boolean): PageValues {
  const values: PageValues = {
    pattern: query.q ? `%${escapeLike(asciiLowerCase(query.q))}%` : undefined,
    platform: query.platform,
    status: query.status === 'untriaged' ? undefined : query.status,
    statusKey: query.status === 'untriaged' ? '' : query.status,
    appId: query.appId,
    limit: query.limit,
    offset: query.page * query.limit,
  };
  searchPatterns(query.searchTerms ?? [], postgres).forEach((pattern, i) => (values[`search${i}`] = pattern));
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
    query.searchTerms ? `t${query.searchTerms.length}` : '',
  ];
  return `${query.sort} ${query.dir} ${filters.join('')}`;
}

type Builds = Database & { b: BuildsTable };

/**
 * The page's ids in the list's order, with the count of every match alongside as a scalar
 * sub-select (evaluated once; one round trip less on PostgreSQL).
 *
 * A search's matches come from its own index, never from walking the sort column's index: they are
 * gathered once (also the count, which needs them all anyway), then the page is sorted out of them.
 * Left to itself PostgreSQL's generic plan walks the sort index and filters each row, which reads
 * every build for a rare term (test/builds/list-plans).
 */
export function pageIds(db: Kysely<Database>, v: PageValues, query: BuildPageQuery, postgres: boolean) {
  // Unset values sort last either way, on SQLite and PostgreSQL alike; id breaks ties so pages are
  // stable. uploaded_at is never null, so it needs no NULLS clause (and keeps to its index).
  const nullsLast = query.sort !== 'uploaded_at';
  if (query.searchTerms) {
    return db
      .with(
        (cte) => cte('m').materialized(),
        (w) => filtered(w.selectFrom('builds as b').select(['b.id', `b.${query.sort} as k`]), db, v, query, postgres),
      )
      .selectFrom('m')
      .select((eb) => ['m.id', eb.selectFrom('m').select((c) => c.fn.countAll().as('n')).as('total')])
      .orderBy('m.k', (order) => (nullsLast ? order[query.dir]().nullsLast() : order[query.dir]()))
      .orderBy('m.id', query.dir)
      .limit(v.limit)
      .offset(v.offset);
  }
  return filtered(db.selectFrom('builds as b').select(['b.id', totalOf(db, v, query, postgres).as('total')]), db, v, query, postgres)
    .orderBy(`b.${query.sort}`, (order) => (nullsLast ? order[query.dir]().nullsLast() : order[query.dir]()))
    .orderBy('b.id', query.dir)
    .limit(v.limit)
    .offset(v.offset);
}

/** The statement that counts every match: the maintained counts, or the rows themselves for a search term. */
export function totalOf(db: Kysely<Database>, v: PageValues, query: BuildPageQuery, postgres: boolean) {
  // Flagged builds are counted from their own table: as cheap as they are few.
  if (query.flagged) {
    return filtered(
      db
        .selectFrom('build_flags as g')
        .innerJoin('builds as b', 'b.id', 'g.build_id')
        .select((eb) => eb.fn.countAll().as('total')),
      db,
      v,
      query,
      postgres,
    );
  }
  if (query.q || query.searchTerms) return filtered(db.selectFrom('builds as b').select((eb) => eb.fn.countAll().as('total')), db, v, query, postgres);
  // build_counts keeps an unset status under ''.
  return db
    .selectFrom('build_counts as c')
    .select((eb) => eb.fn.coalesce(eb.fn.sum('c.n'), eb.lit(0)).as('total'))
    .$if(query.platform !== undefined, (qb) => qb.where('c.platform', '=', v.platform!))
    .$if(query.status !== undefined, (qb) => qb.where('c.status_key', '=', v.statusKey!))
    .$if(query.appId !== undefined, (qb) => qb.where('c.app_id', '=', v.appId!));
}

/** The list's filters on `builds b`, each a condition added to `qb`'s WHERE. */
function filtered<Q extends SelectQueryBuilder<any, any, any>>(qb: Q, db: Kysely<Database>, v: PageValues, query: BuildPageQuery, postgres: boolean): Q {
  const conditions: Expression<SqlBool>[] = [];
  const b = (column: keyof BuildsTable) => sql.ref<number>(`b.${column}`);
  // LOWER() folds ASCII letters only on SQLite (and on PostgreSQL's COLLATE "C" column): the term is folded the same way.
  if (query.q) conditions.push(sql<SqlBool>`lower(${b('version_name')}) like ${v.pattern} escape '\\'`);
  if (query.searchTerms) conditions.push(searchCondition(db, query.searchTerms.map((_, i) => v[`search${i}`]), postgres));
  if (query.platform) conditions.push(sql<SqlBool>`${b('platform')} = ${v.platform}`);
  if (query.status === 'untriaged') conditions.push(sql<SqlBool>`${b('status_label')} is null`);
  else if (query.status) conditions.push(sql<SqlBool>`${b('status_label')} = ${v.status}`);
  if (query.appId !== undefined) conditions.push(sql<SqlBool>`${b('app_id')} = ${v.appId}`);
  // A probe per row of the list's index walk (not `IN (…)`, which would sort the flagged builds).
  if (query.flagged) conditions.push(sql<SqlBool>`exists ${db.selectFrom('build_flags as f').select(sql.lit(1).as('one')).where('f.build_id', '=', b('id'))}`);
  return conditions.reduce((filtering, condition) => filtering.where(condition) as Q, qb);
}

/**
 * These builds (one stand-in per id, `count` of them) with the upload entry (the first history
 * entry, by the build_id index), its author's live account (by primary key), whether the build
 * has an icon and its flags, as ListedValues in order. No ORDER BY: the ids already are the page's
 * order, and sorting in SQL would be a sort step per request (test/builds/list-plans).
 */
export function listed(db: Kysely<Database>, ids: number[], count: number) {
  return db
    .selectFrom('builds as b')
    .leftJoin('build_status_changes as s', (join) =>
      join.on((eb) =>
        eb('s.id', '=', eb.selectFrom('build_status_changes as f').select((f) => f.fn.min('f.id').as('first')).whereRef('f.build_id', '=', 'b.id')),
      ),
    )
    .leftJoin('users as u', 'u.id', 's.changed_by_id')
    .select([
      ...SHOWN_COLUMNS,
      's.id as upload_id',
      's.changed_by_id as uploader_id',
      's.changed_by_display_name as kept_name',
      's.changed_by_email as kept_email',
      'u.display_name as user_name',
      'u.email as user_email',
    ])
    .select((eb) => [
      eb.exists(eb.selectFrom('build_icons as i').select((i) => i.lit(1).as('one')).whereRef('i.build_id', '=', 'b.id')).as('has_icon'),
      eb.selectFrom('build_flags as g').select('g.flags').whereRef('g.build_id', '=', 'b.id').as('flags'),
    ])
    .where('b.id', 'in', Array.from({ length: count }, (_, i) => ids[i]));
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

import { sql, type Kysely, type SelectQueryBuilder } from 'kysely';
import type { BuildsTable, Database } from '../database/query-builder/tables';
import type { BuildPageQuery } from './builds.repository';

/*
 * The statements of GET /builds (docs/decisions.md#item-3, #p1), each prepared once per shape
 * (QueryBuilder.prepare): the shape is the sort, the direction and which filters are set; the
 * values are bound per request. test/builds/list-plans holds their plans to an index walk.
 */

/** The values a page's statements bind (each used only by the shapes that filter on it). */
export interface PageValues {
  /** The `?q=` term as a LIKE pattern (ASCII-folded, wildcards escaped). */
  pattern: string | undefined;
  platform: string | undefined;
  status: string | undefined;
  appId: number | undefined;
  limit: number;
  offset: number;
}

export function pageValues(query: BuildPageQuery): PageValues {
  return {
    pattern: query.q ? `%${escapeLike(asciiLowerCase(query.q))}%` : undefined,
    platform: query.platform,
    status: query.status,
    appId: query.appId,
    limit: query.limit,
    offset: query.page * query.limit,
  };
}

/** Everything the page's statements branch on (QueryBuilder.prepare's key). */
export function shapeOf(query: BuildPageQuery): string {
  return `${query.sort} ${query.dir} ${query.q ? 'q' : ''}${query.platform ? 'p' : ''}${query.status ? 's' : ''}${query.appId !== undefined ? 'a' : ''}`;
}

type Builds = Database & { b: BuildsTable };

/**
 * The page's ids in the list's order, with the count of every match alongside as a scalar
 * sub-select (evaluated once; one round trip less on PostgreSQL).
 */
export function pageIds(db: Kysely<Database>, v: PageValues, query: BuildPageQuery) {
  // Unset values sort last either way, on SQLite and PostgreSQL alike; id breaks ties so pages are
  // stable. uploaded_at is never null, so it needs no NULLS clause (and keeps to its index).
  const nullsLast = query.sort !== 'uploaded_at';
  return filtered(db.selectFrom('builds as b').select(['b.id', totalOf(db, v, query).as('total')]), v, query)
    .orderBy(`b.${query.sort}`, (order) => (nullsLast ? order[query.dir]().nullsLast() : order[query.dir]()))
    .orderBy('b.id', query.dir)
    .limit(v.limit)
    .offset(v.offset);
}

/** The statement that counts every match: the maintained counts, or the rows themselves for a search term. */
export function totalOf(db: Kysely<Database>, v: PageValues, query: BuildPageQuery) {
  if (query.q) return filtered(db.selectFrom('builds as b').select((eb) => eb.fn.countAll().as('total')), v, query);
  return db
    .selectFrom('build_counts as c')
    .select((eb) => eb.fn.coalesce(eb.fn.sum('c.n'), eb.lit(0)).as('total'))
    .$if(query.platform !== undefined, (qb) => qb.where('c.platform', '=', v.platform!))
    .$if(query.status !== undefined, (qb) => qb.where('c.status_key', '=', v.status!))
    .$if(query.appId !== undefined, (qb) => qb.where('c.app_id', '=', v.appId!));
}

/** The list's filters on `builds b`. */
function filtered<O>(qb: SelectQueryBuilder<Builds, 'b', O>, v: PageValues, query: BuildPageQuery): SelectQueryBuilder<Builds, 'b', O> {
  return (
    qb
      // LOWER() folds ASCII letters only on SQLite (and on PostgreSQL's COLLATE "C" column): the term is folded the same way.
      .$if(!!query.q, (q) => q.where(sql<boolean>`lower(${sql.ref('b.version_name')}) like ${v.pattern} escape '\\'`))
      .$if(query.platform !== undefined, (q) => q.where('b.platform', '=', v.platform!))
      .$if(query.status !== undefined, (q) => q.where('b.status_label', '=', v.status!))
      .$if(query.appId !== undefined, (q) => q.where('b.app_id', '=', v.appId!))
  );
}

/**
 * These builds (one stand-in per id, `count` of them) with the upload entry (the first history
 * entry, by the build_id index), its author's live account (by primary key) and whether the build
 * has an icon, as LISTED_COLUMNS' values in order. No ORDER BY: the ids already are the page's
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
    .select((eb) => eb.exists(eb.selectFrom('build_icons as i').select((i) => i.lit(1).as('one')).whereRef('i.build_id', '=', 'b.id')).as('has_icon'))
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

function asciiLowerCase(text: string): string {
  return text.replace(/[A-Z]/g, (c) => c.toLowerCase());
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

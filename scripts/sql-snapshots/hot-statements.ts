/*
 * The hot paths' statements whose SQL is kept in src/database/sql/ (one file per statement and
 * dialect), so that a change to a query shows in review as a diff of SQL. Every import of a
 * statement builder is in this file: when a module moves, its path changes here only.
 */
import type { QueryBuilder } from '../../src/database/query-builder/query-builder';
import { listed, pageIds, PageValues, seekPageIds, shapeOf, textCounts, totalOf } from '../../src/builds/build-list.repository';
import type { BuildPageQuery } from '../../src/builds/build-page';
import { SearchMode, withIndexedQ } from '../../src/builds/build-search.repository';
import { commentsOfBuildStatement } from '../../src/comments/comments.repository';
import { auditEntriesStatement } from '../../src/audit/audit-log.repository';

/** A statement as its repository prepares it (the key is the repository's, so the text is what the relay runs). */
export interface HotStatement {
  name: string;
  prepare: (sql: QueryBuilder) => { sql: string };
}

/** GET /builds shapes: the default page, each filter, each sort, `q`, `search` (long and short terms). */
const page = (query: Partial<BuildPageQuery>): BuildPageQuery => ({ page: 0, limit: 20, sort: 'uploaded_at', dir: 'desc', ...query });
const LIST_QUERIES: Record<string, BuildPageQuery> = {
  default: page({}),
  status: page({ status: 'Done' }),
  untriaged: page({ status: 'untriaged' }),
  platform: page({ platform: 'ios' }),
  app: page({ appId: 1 }),
  flagged: page({ flagged: true }),
  branch: page({ branch: 'main' }),
  commit: page({ commit: 'abcdef1' }),
  gate: page({ gate: 'failed' }),
  'version-asc': page({ sort: 'version_name', dir: 'asc' }),
  'status-desc': page({ sort: 'status_label', dir: 'desc' }),
  q: page({ q: 'release' }),
  search: page({ searchTerms: ['feature'] }),
  'search-short': page({ searchTerms: ['ab'] }),
  'search-filtered': page({ searchTerms: ['demo', 'login'], status: 'Done', sort: 'version_name', dir: 'asc' }),
};

/** The list without `q` or `search` (BuildsRepository.findPage): the page with its total, the total alone. */
const plainList = (name: string, query: BuildPageQuery): HotStatement[] => [
  { name: `builds.page.${name}`, prepare: (sql) => sql.prepare(`builds.page ${shapeOf(query)}`, (v: PageValues) => pageIds(sql.db, v, query, sql.postgres)) },
  { name: `builds.total.${name}`, prepare: (sql) => sql.prepare(`builds.total ${shapeOf(query)}`, (v: PageValues) => totalOf(sql.db, v, query, sql.postgres)) },
];

/** A `q` or `search` list (findTextPage): its counts, and its page in each way it may be read. */
const textList = (name: string, given: BuildPageQuery): HotStatement[] => {
  const query = withIndexedQ(given);
  const modes: SearchMode[] = query.searchTerms ? ['gather', 'walk', 'scan'] : ['walk'];
  return [
    { name: `builds.textCounts.${name}`, prepare: (sql) => sql.prepare(`builds.textCounts ${shapeOf(query)}`, (v: PageValues) => textCounts(sql.db, v, query, sql.postgres)) },
    ...modes.map(
      (mode): HotStatement => ({
        name: `builds.textPage.${mode}.${name}`,
        prepare: (sql) => sql.prepare(`builds.textPage ${mode} ${shapeOf(query)}`, (v: PageValues) => pageIds(sql.db, v, query, sql.postgres, mode, false)),
      }),
    ),
  ];
};

const buildsStatements: HotStatement[] = Object.entries(LIST_QUERIES).flatMap(([name, query]) => (query.q || query.searchTerms ? textList(name, query) : plainList(name, query)));

/** Deep pages (findDeepPage): by upload time the day seek, by another sort the index walked from either end. */
const deepPages: HotStatement[] = (['start', 'end'] as const).flatMap((end): HotStatement[] => [
  {
    name: `builds.seekPage.${end}.default`,
    prepare: (sql) => sql.prepare(`builds.seekPage ${end} ${shapeOf(LIST_QUERIES.default)}`, (v: PageValues) => seekPageIds(sql.db, v, LIST_QUERIES.default, sql.postgres, end === 'end')),
  },
  {
    name: `builds.page.${end}.version-asc`,
    prepare: (sql) =>
      sql.prepare(`builds.page ${end} ${shapeOf(LIST_QUERIES['version-asc'])}`, (v: PageValues) => pageIds(sql.db, v, LIST_QUERIES['version-asc'], sql.postgres, 'gather', true, end === 'end')),
  },
]);

const listedRows: HotStatement = {
  name: 'builds.listed.20',
  prepare: (sql: QueryBuilder) => sql.prepare('builds.listed 20', (v: number[]) => listed(sql.db, v, 20, sql.postgres)),
};

const comments: HotStatement = { name: 'comments.ofBuild', prepare: (sql) => commentsOfBuildStatement(sql) };

const AUDIT_SHAPES = {
  page: { action: null, actor: null, target: false, since: false, until: false, order: 'newest' },
  'page-filtered': { action: 'family', actor: 'id or label', target: true, since: true, until: true, order: 'newest before' },
  export: { action: 'one', actor: 'label', target: false, since: true, until: false, order: 'oldest after' },
} as const;
const audit: HotStatement[] = Object.entries(AUDIT_SHAPES).map(([name, shape]) => ({ name: `audit.entries.${name}`, prepare: (sql) => auditEntriesStatement(sql, shape) }));

export const HOT_STATEMENTS: HotStatement[] = [...buildsStatements, ...deepPages, listedRows, comments, ...audit];

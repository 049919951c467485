import { DataSource, QueryRunner } from 'typeorm';
import { TransactionRunner } from '../../src/database/transaction-runner';
import { attachBuild } from '../support/build-fixtures';
import { testDialect, TestRelay } from '../support/test-relay';
import { useTestRelay } from '../support/use-relay';

/**
 * GET /builds reads each page by walking an index in the list's order, never by sorting the
 * matches (docs/decisions.md#p1): at 100,000 builds a sort costs more than all the rest of a
 * request. The statements checked are the ones the relay really sends for each variant of spec §4
 * (caught on their way to the data source), explained on the same database: on PostgreSQL as the generic
 * plan the relay's connections use, with sorting disabled, so any plan that still sorts has no index to
 * walk; on SQLite by the absence of a
 * temporary B-tree for the ORDER BY.
 */
describe('GET /builds walks an index in the order of every sort', () => {
  const ctx = useTestRelay();
  const variants = [
    '',
    '?status=Done',
    '?platform=ios',
    '?app_id=1',
    '?flagged=true',
    ...['uploaded_at', 'version_name', 'status_label'].flatMap((sort) => [`?sort=${sort}&dir=asc`, `?sort=${sort}&dir=desc`]),
  ];

  it.each(variants)('GET /builds%s', async (query) => {
    const member = await ctx.members.member('QA');
    const dataSource = ctx.relay.app.get(DataSource);
    const sent = await statementsDuring(ctx.relay, () => ctx.members.as(member, 'get', `/api/v1/builds${query}`).expect(200));
    const ordered = sent.filter((s) => /\bFROM builds\b/.test(s.sql) && /\bORDER BY\b/.test(s.sql));
    expect(ordered.length).toBeGreaterThan(0);
    for (const statement of ordered) expect({ sql: statement.sql, sorts: await sortsIn(dataSource, statement) }).toEqual({ sql: statement.sql, sorts: [] });
  });
});

/**
 * A page costs two statements on the builds (each a round trip on PostgreSQL): its ids with the
 * total as a sub-select, then its rows; the count is asked alone only for a page past the end.
 */
describe('GET /builds reads a page in two statements', () => {
  const ctx = useTestRelay();

  const pages: [string, number][] = [
    ['', 2],
    ['?q=1.', 2],
    ['?sort=version_name&dir=asc&limit=1&page=5', 2], // past the end: the ids, then the count alone
    ['?status=Done&platform=ios', 1], // nothing matches: the first page's empty ids say total 0
  ];

  let pat: string;
  beforeAll(async () => {
    pat = await ctx.members.pat(await ctx.members.member('QA'), 'builds:write');
    for (const file of ['literal-label.apk', 'xml-root.app.zip']) {
      await attachBuild(ctx.members.withPat(pat, 'post', '/api/v1/builds'), file).expect(201);
    }
  });

  it.each(pages)('GET /builds%s: %i', async (query, expected) => {
    const sent = await statementsDuring(ctx.relay, () => ctx.members.withPat(pat, 'get', `/api/v1/builds${query}`).expect(200));
    expect(sent.map((s) => s.sql).filter((sql) => /\bFROM (builds|build_counts)\b/.test(sql))).toHaveLength(expected);
  });
});

interface Statement {
  sql: string;
  parameters: unknown[];
}

/**
 * Every raw statement the relay sent while `work` ran (the list's reads are raw SQL): through the
 * data source, and through TransactionRunner.selectArrays (rows read as arrays).
 */
async function statementsDuring(relay: TestRelay, work: () => Promise<unknown>): Promise<Statement[]> {
  const sent: Statement[] = [];
  const dataSource = relay.app.get(DataSource);
  const original = dataSource.query.bind(dataSource);
  const spy = jest.spyOn(dataSource, 'query').mockImplementation((sql: string, parameters?: unknown[], runner?: QueryRunner) => {
    sent.push({ sql, parameters: parameters ?? [] });
    return original(sql, parameters, runner);
  });
  const transactions = relay.app.get(TransactionRunner);
  const selectArrays = transactions.selectArrays.bind(transactions);
  const arrays = jest.spyOn(transactions, 'selectArrays').mockImplementation((sql: string, parameters: unknown[]) => {
    sent.push({ sql, parameters });
    return selectArrays(sql, parameters);
  });
  try {
    await work();
  } finally {
    spy.mockRestore();
    arrays.mockRestore();
  }
  return sent;
}

/** The sorting steps in the statement's plan (PostgreSQL: Sort / Incremental Sort nodes; SQLite: temp B-trees for ORDER BY). */
async function sortsIn(dataSource: DataSource, statement: Statement): Promise<string[]> {
  const runner = dataSource.createQueryRunner();
  try {
    if (testDialect === 'sqlite') {
      // SQLite sorts the page's few joined rows once more after the page is picked (a temp B-tree of
      // at most `limit` rows): what must not sort is the SELECT … LIMIT that picks them.
      const page = pagePicker(statement);
      const plan: { detail: string }[] = await runner.query(`EXPLAIN QUERY PLAN ${page.sql}`, page.parameters);
      return plan.map((step) => step.detail).filter((detail) => /TEMP B-TREE FOR (RIGHT PART OF )?ORDER BY/.test(detail));
    }
    // The plan the relay runs: its connections plan named statements generically (plan_cache_mode,
    // data-source-options.ts), so the statement is prepared and its generic plan explained.
    await runner.startTransaction();
    try {
      await runner.query('SET LOCAL enable_sort = off');
      await runner.query('SET LOCAL enable_incremental_sort = off');
      await runner.query('SET LOCAL plan_cache_mode = force_generic_plan');
      await runner.query(`PREPARE list_plan AS ${statement.sql}`);
      const values = statement.parameters.map((value) => (typeof value === 'number' ? String(value) : `'${String(value).replace(/'/g, "''")}'`));
      const [{ 'QUERY PLAN': plan }] = await runner.query(`EXPLAIN (FORMAT JSON) EXECUTE list_plan${values.length ? `(${values.join(', ')})` : ''}`);
      return nodeTypes(plan[0].Plan).filter((type) => /Sort/.test(type));
    } finally {
      await runner.rollbackTransaction();
      // A prepared statement outlives the transaction; only this one goes (the relay's own stay).
      await runner.query('DEALLOCATE list_plan').catch(() => undefined);
    }
  } finally {
    await runner.release();
  }
}

/** The innermost sub-select with a LIMIT (SQLite's `?` parameters), or the statement itself. */
function pagePicker(statement: Statement): Statement {
  const match = /\((SELECT [^()]*\bLIMIT\b[^()]*)\)/.exec(statement.sql);
  if (!match) return statement;
  const before = (statement.sql.slice(0, match.index).match(/\?/g) ?? []).length;
  const inside = (match[1].match(/\?/g) ?? []).length;
  return { sql: match[1], parameters: statement.parameters.slice(before, before + inside) };
}

function nodeTypes(node: { 'Node Type': string; Plans?: unknown[] }): string[] {
  return [node['Node Type'], ...((node.Plans ?? []) as (typeof node)[]).flatMap(nodeTypes)];
}

import { DataSource, QueryRunner } from 'typeorm';
import { installPlatform } from '../install';

/**
 * The SQLite gate and the integer binding are the data source's, installed by its 'data-source'
 * phase (DatabaseModule's factory) before initialize() runs the migrations; the TransactionRunner
 * only uses them. On a real in-memory SQLite database.
 */
const sqlite = () => new DataSource({ type: 'better-sqlite3', database: ':memory:' });
const GATED = ['query', 'startTransaction', 'commitTransaction', 'rollbackTransaction'] as const;

describe("the SQLite connection gate, installed in the 'data-source' phase", () => {
  const open: DataSource[] = [];
  afterEach(async () => {
    for (const dataSource of open.splice(0)) if (dataSource.isInitialized) await dataSource.destroy();
  });

  it("wraps the driver's one shared query runner before initialize(), so the migrations already go through it", () => {
    const dataSource = installPlatform('data-source', sqlite());
    const shared = dataSource.driver.createQueryRunner('master');
    expect(dataSource.driver.createQueryRunner('master')).toBe(shared);
    expect(dataSource.createQueryRunner()).toBe(shared);
    const proto = Object.getPrototypeOf(shared) as QueryRunner;
    for (const method of GATED) expect(`${method}: ${shared[method] === proto[method] ? 'stock' : 'wrapped'}`).toBe(`${method}: wrapped`);
  });


  it('binds integer parameters (as BigInt); other numbers stay in the text, as TypeORM writes them', async () => {
    const dataSource = installPlatform('data-source', sqlite());
    open.push(await dataSource.initialize());
    const [sql, parameters] = dataSource.driver.escapeQueryWithParameters('SELECT :a AS a, :b AS b', { a: 7, b: 0.5 }, {});
    // typeof, not the values: jest's workers cannot report a BigInt in a failure.
    expect({ sql, parameters: parameters.map((value) => `${typeof value} ${String(value)}`) }).toEqual({ sql: 'SELECT ? AS a, 0.5 AS b', parameters: ['bigint 7'] });
    expect(await dataSource.query(sql, parameters)).toEqual([{ a: 7, b: 0.5 }]);
  });


  it('leaves a PostgreSQL data source alone: a plain transaction per run()', () => {
    const dataSource = installPlatform('data-source', new DataSource({ type: 'postgres', url: 'postgres://nobody@127.0.0.1:1/none' }));
    const runner = dataSource.driver.createQueryRunner('master');
    expect(runner.query).toBe((Object.getPrototypeOf(runner) as QueryRunner).query);
  });
});

import {
  Compilable,
  CompiledQuery,
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely';
import type { DataSource } from 'typeorm';
import type { Database } from './tables';
import type { Sql } from '../sql';

/**
 * The one way to write a statement by hand (docs/database.md "One dialect"): Kysely, compile-only.
 * Its DummyDriver never connects; `.compile()` gives `{ sql, parameters }` in the data source's
 * dialect (`?` or `$n`, quoting), which runs on the SqlExecutor or the caller's transaction (sql.ts)
 * like any statement: values bound, PostgreSQL's named statements, the transaction of the async call
 * chain. No second connection.
 */
export class QueryBuilder {
  readonly db: Kysely<Database>;
  private readonly statements = new Map<string, PreparedStatement<never>>();

  private constructor(readonly postgres: boolean) {
    this.db = new Kysely<Database>({
      dialect: {
        createAdapter: () => (postgres ? new PostgresAdapter() : new SqliteAdapter()),
        createDriver: () => new DummyDriver(),
        createIntrospector: (db) => (postgres ? new PostgresIntrospector(db) : new SqliteIntrospector(db)),
        createQueryCompiler: () => (postgres ? new PostgresQueryCompiler() : new SqliteQueryCompiler()),
      },
    });
  }

  /** The builder of the data source's dialect (one per dialect: a statement's text depends on nothing else). */
  static of(dataSource: DataSource): QueryBuilder {
    return QueryBuilder.for(dataSource.options.type === 'postgres' ? 'postgres' : 'sqlite');
  }

  /** The dialect's builder, for a database reached without TypeORM (svc migrate's SQLite source). */
  static for(dialect: 'sqlite' | 'postgres'): QueryBuilder {
    return (builders[dialect] ??= new QueryBuilder(dialect === 'postgres'));
  }

  /**
   * The statement `build` writes, compiled the first time `key` is asked for and kept: building
   * and compiling a statement costs tens of µs, a share of a hot read (GET /builds ~350 µs of CPU).
   * `build` receives stand-ins for the values, which are bound by name on each run; the key must
   * name everything `build` branches on (the shape), and `build` writes no value of its own into
   * the statement (compiling refuses one, since the next run with that key would reuse it).
   */
  prepare<V extends object>(key: string, build: (values: V) => Compilable<unknown>): PreparedStatement<V> {
    let statement = this.statements.get(key) as PreparedStatement<V> | undefined;
    if (!statement) {
      statement = new PreparedStatement<V>(build(standIns as V).compile());
      this.statements.set(key, statement as PreparedStatement<never>);
    }
    return statement;
  }

  /** A boolean as the dialect binds it: PostgreSQL's boolean, SQLite's 1 or 0 (better-sqlite3 binds no booleans; TypeORM stored 1/0). */
  bool(value: boolean): boolean | number {
    return this.postgres ? value : value ? 1 : 0;
  }
}

const builders: Partial<Record<'sqlite' | 'postgres', QueryBuilder>> = {};

/** A prepared statement's value, bound by name (a property of the values object) when it runs. */
class StandIn {
  constructor(readonly name: string | number) {}
}

/** Hands `build` a stand-in for any value it reads (`values.limit`, `values[3]`). */
const standIns = new Proxy(
  {},
  { get: (_target, name) => (typeof name === 'symbol' ? undefined : new StandIn(/^\d+$/.test(name) ? Number(name) : name)) },
);

/** A compiled statement whose values are bound per run, in the order its placeholders appear. */
export class PreparedStatement<V extends object> {
  readonly sql: string;
  private readonly names: (string | number)[];

  constructor(compiled: CompiledQuery<unknown>) {
    this.sql = compiled.sql;
    this.names = compiled.parameters.map((parameter) => {
      if (!(parameter instanceof StandIn)) throw new Error(`A prepared statement binds only its named values; ${String(parameter)} is written in: ${compiled.sql}`);
      return parameter.name;
    });
  }

  parameters(values: V): unknown[] {
    const record = values as Record<string | number, unknown>;
    return this.names.map((name) => record[name]);
  }

  /**
   * Runs on `on` (the executor, or a transaction) and returns the rows as objects: a SELECT's,
   * or what an INSERT, UPDATE or DELETE names in RETURNING (the way to learn which rows a write
   * touched on both dialects).
   */
  run<R>(on: Sql, values: V): Promise<R[]> {
    return on.query<R>(this.sql, this.parameters(values));
  }
}

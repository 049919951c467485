import type { Insertable, Updateable } from 'kysely';
import type { EntityManager } from 'typeorm';
import { PreparedStatement, QueryBuilder } from './query-builder';
import type { Database } from './tables';

/** Tables whose rows are keyed by a generated integer `id`. */
type IdTable = { [T in keyof Database]: Database[T] extends { id: unknown } ? T : never }[keyof Database];

/** Something a statement runs on: the manager of a transaction, or the data source's own. */
type Runner = Pick<EntityManager, 'query' | 'connection'>;

/**
 * Inserts one row and returns its id. The statement is prepared per set of columns (`undefined`
 * values are left to the column's default), so every insert of the same shape binds one text.
 */
export async function insertReturningId<T extends IdTable>(on: Runner, table: T, row: Insertable<Database[T]>): Promise<number> {
  const sql = QueryBuilder.of(on.connection);
  const columns = definedColumns(row);
  const statement = sql.prepare(`rows.insert ${table} ${columns.join(',')}`, (v: Record<string, unknown>) =>
    sql.db
      .insertInto(table)
      .values(Object.fromEntries(columns.map((column) => [column, v[column]])) as never)
      .returning('id' as never),
  );
  const [inserted] = await statement.run<{ id: number | string }>(on, row);
  return Number(inserted.id);
}

/**
 * Sets the defined columns of `set` on the row with this id; how many rows changed (0 or 1), from
 * `RETURNING` since the drivers report affected rows differently through a plain query.
 */
export async function updateById<T extends IdTable>(on: Runner, table: T, id: number, set: Updateable<Database[T]>): Promise<number> {
  const sql = QueryBuilder.of(on.connection);
  const columns = definedColumns(set);
  if (!columns.length) return 0;
  const statement = sql.prepare(`rows.update ${table} ${columns.join(',')}`, (v: Record<string, unknown>) =>
    (sql.db.updateTable(table) as unknown as ReturnType<typeof sql.db.updateTable<'webhooks'>>)
      .set(Object.fromEntries(columns.map((column) => [column, v[column]])) as never)
      .where('id' as never, '=', v.id as never)
      .returning('id' as never),
  );
  return (await changedRows(statement, on, { ...set, id })).length;
}

/** Deletes the row with this id; whether there was one. */
export async function deleteById(on: Runner, table: IdTable, id: number): Promise<boolean> {
  const sql = QueryBuilder.of(on.connection);
  const statement = sql.prepare(`rows.delete ${table}`, (v: { id: number }) =>
    sql.db
      .deleteFrom(table)
      .where('id' as never, '=', v.id as never)
      .returning('id' as never),
  );
  return (await changedRows(statement, on, { id })).length > 0;
}

/**
 * A boolean as the dialect binds it: better-sqlite3 binds no booleans (SQLite keeps them as 1 and
 * 0), PostgreSQL's columns are `boolean`. Read back with `Boolean()`.
 */
export function booleanValue(on: Runner, value: boolean): boolean | number {
  return on.connection.options.type === 'postgres' ? value : value ? 1 : 0;
}

/**
 * The rows an UPDATE or DELETE … RETURNING gives back. TypeORM's PostgreSQL runner answers those two
 * with `[rows, rowCount]` rather than the rows (an INSERT's or a SELECT's are the rows themselves).
 */
export async function changedRows<R = { id: number | string }, V extends object = object>(statement: PreparedStatement<V>, on: Runner, values: V): Promise<R[]> {
  const result = await statement.run<unknown>(on, values);
  const pgPair = result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number';
  return (pgPair ? result[0] : result) as R[];
}

function definedColumns(row: object): string[] {
  return Object.entries(row)
    .filter(([, value]) => value !== undefined)
    .map(([column]) => column)
    .sort();
}

/**
 * An entity's defined fields as its table's columns (`columns`: field → column), times as epoch
 * milliseconds (every time column is a TimestampColumn): the values of an insert or an update.
 */
export function fieldsAsColumns<F extends object>(fields: F, columns: Record<keyof F, string>): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(fields)) {
    if (value !== undefined) row[columns[field as keyof F]] = value instanceof Date ? value.getTime() : value;
  }
  return row;
}

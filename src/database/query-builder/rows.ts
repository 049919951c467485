import type { Insertable, Updateable } from 'kysely';
import { PreparedStatement, QueryBuilder } from './query-builder';
import type { Database } from './tables';
import type { Sql } from '../sql';

/** Tables whose rows are keyed by a generated integer `id`. */
type IdTable = { [T in keyof Database]: Database[T] extends { id: unknown } ? T : never }[keyof Database];


/**
 * Inserts one row and returns its id. The statement is prepared per set of columns (`undefined`
 * values are left to the column's default), so every insert of the same shape binds one text.
 */
export async function insertReturningId<T extends IdTable>(on: Sql, table: T, row: Insertable<Database[T]>): Promise<number> {
  const sql = QueryBuilder.for(on.dialect);
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
export async function updateById<T extends IdTable>(on: Sql, table: T, id: number, set: Updateable<Database[T]>): Promise<number> {
  const sql = QueryBuilder.for(on.dialect);
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
export async function deleteById(on: Sql, table: IdTable, id: number): Promise<boolean> {
  const sql = QueryBuilder.for(on.dialect);
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
export function booleanValue(on: Sql, value: boolean): boolean | number {
  return on.dialect === 'postgres' ? value : value ? 1 : 0;
}

/** The rows an UPDATE or DELETE … RETURNING gives back (the ones it changed). */
export function changedRows<R = { id: number | string }, V extends object = object>(statement: PreparedStatement<V>, on: Sql, values: V): Promise<R[]> {
  return statement.run<R>(on, values);
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

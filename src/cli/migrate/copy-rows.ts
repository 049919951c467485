import type Database from 'better-sqlite3';
import { sql, type RawBuilder } from 'kysely';
import { createHash } from 'node:crypto';
import type { Sql } from '../../database/sql';
import { QueryBuilder } from '../../database/query-builder/query-builder';
import { CliError } from '../../relay-client/client-errors';

/**
 * Tables the relay keeps that are not data: TypeORM's own, and the change counter of GET /builds'
 * kept totals (migration BuildListChanges: the target's triggers bump its own while rows are copied).
 */
const NOT_DATA = new Set(['migrations', 'typeorm_metadata', 'build_list_changes']);
/**
 * Tables the target fills by itself from the copied rows (triggers on `builds` keep `build_counts`, `build_day_counts` and
 * `build_day_totals`, on `build_provenance` `build_branch_counts`): never copied, only verified against the source.
 */
const DERIVED = new Set(['build_counts', 'build_day_counts', 'build_day_totals', 'build_branch_counts']);
/** SQLite's search index (an FTS5 table and its shadow tables, migration BuildSearch): PostgreSQL indexes a column instead. */
const isSqliteIndex = (name: string) => name === 'build_search' || name.startsWith('build_search_');
/** Columns only the target has, filled by its triggers (`builds.search_text`, migration BuildSearch): not compared. */
const TARGET_ONLY_COLUMNS: Record<string, string[]> = { builds: ['search_text'] };
/** Rows per INSERT (PostgreSQL allows 65535 parameters per statement). */
const BATCH_PARAMETERS = 30_000;

export interface TableReport {
  table: string;
  rows: number;
  sha256: string;
}

/** The data tables of the SQLite source, parents before the tables that reference them. */
export function tablesInCopyOrder(source: Database.Database): string[] {
  const names = sourceRows<{ name: string }>(source, sql`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`)
    .map((t) => t.name)
    .filter((name) => !NOT_DATA.has(name) && !isSqliteIndex(name))
    .sort();
  const parents = new Map(
    names.map((name) => [
      name,
      sourceRows<{ table: string }>(source, sql`PRAGMA foreign_key_list(${sql.table(name)})`)
        .map((fk) => fk.table)
        .filter((parent) => parent !== name),
    ]),
  );
  const ordered: string[] = [];
  const visit = (name: string, path: string[]) => {
    if (ordered.includes(name)) return;
    if (path.includes(name)) throw new CliError(`Cannot order tables: foreign keys form a cycle (${[...path, name].join(' → ')})`);
    for (const parent of parents.get(name) ?? []) if (names.includes(parent)) visit(parent, [...path, name]);
    ordered.push(name);
  };
  for (const name of names) visit(name, []);
  return ordered;
}

/**
 * Copies every data table from the source into the target inside the target's transaction
 * (`target`): the target's own rows (the seeded team settings) are replaced, derived tables are
 * left to the target's triggers, and each serial id sequence continues after the copied ids.
 */
export async function copyRows(source: Database.Database, target: Sql, tables: string[]): Promise<void> {
  for (const table of [...tables].reverse()) await targetRows(target, sql`DELETE FROM ${sql.table(table)}`);
  for (const table of tables.filter((t) => !DERIVED.has(t))) {
    const types = await columnTypes(target, table);
    const columns = sourceRows<{ name: string }>(source, sql`PRAGMA table_info(${sql.table(table)})`).map((c) => c.name);
    const missing = columns.filter((c) => !types.has(c));
    if (missing.length) throw new CliError(`The target's table ${table} has no column ${missing.join(', ')}: schemas differ`);
    const perBatch = Math.max(1, Math.floor(BATCH_PARAMETERS / columns.length));
    const columnList = sql.join(columns.map((column) => sql.id(column)));
    let after = 0;
    for (;;) {
      const rows = sourceRows<Record<string, unknown>>(
        source,
        sql`SELECT rowid AS "__rowid", * FROM ${sql.table(table)} WHERE rowid > ${after} ORDER BY rowid LIMIT ${perBatch}`,
      );
      if (!rows.length) break;
      after = rows[rows.length - 1].__rowid as number;
      const tuples = rows.map((row) => sql`(${sql.join(columns.map((column) => toTarget(row[column], types.get(column)!)))})`);
      await targetRows(target, sql`INSERT INTO ${sql.table(table)} (${columnList}) VALUES ${sql.join(tuples)}`);
    }
    if (types.has('id')) {
      // pg_get_serial_sequence reads its first argument as a (quoted) name: a value, not an identifier of this statement.
      const name = quote(table);
      await targetRows(
        target,
        sql`SELECT setval(pg_get_serial_sequence(${name}, 'id'), COALESCE(MAX(id), 1), MAX(id) IS NOT NULL) FROM ${sql.table(table)} WHERE pg_get_serial_sequence(${name}, 'id') IS NOT NULL`,
      );
    }
  }
}

/** Row count and an order-independent SHA-256 of the rows (values normalised across dialects). */
export function sourceReport(source: Database.Database, table: string, booleans: Set<string>): TableReport {
  return report(table, sourceRows<Record<string, unknown>>(source, sql`SELECT * FROM ${sql.table(table)}`), booleans);
}

export async function targetReport(target: Sql, table: string): Promise<TableReport> {
  const rows = await targetRows<Record<string, unknown>>(target, sql`SELECT * FROM ${sql.table(table)}`);
  for (const row of rows) for (const column of TARGET_ONLY_COLUMNS[table] ?? []) delete row[column];
  return report(table, rows, new Set());
}

/** The target's boolean columns of a table (SQLite stores them as 0/1). */
export async function booleanColumns(target: Sql, table: string): Promise<Set<string>> {
  const types = await columnTypes(target, table);
  return new Set([...types].filter(([, type]) => type === 'boolean').map(([name]) => name));
}

function report(table: string, rows: Record<string, unknown>[], booleans: Set<string>): TableReport {
  const digests = rows
    .map((row) => {
      const fields = Object.keys(row)
        .sort()
        .map((key) => `${key}=${normalise(row[key], booleans.has(key))}`);
      return createHash('sha256').update(fields.join('\u0000')).digest('hex');
    })
    .sort();
  return { table, rows: rows.length, sha256: createHash('sha256').update(digests.join('\n')).digest('hex') };
}

function normalise(value: unknown, isBoolean: boolean): string {
  if (value === null || value === undefined) return '\u0001null';
  if (isBoolean || typeof value === 'boolean') return value ? '1' : '0';
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value)) return String(Number(value)); // PostgreSQL bigint/numeric as text
  if (Buffer.isBuffer(value)) return value.toString('base64');
  return String(value);
}

function toTarget(value: unknown, type: string): unknown {
  if (value === null || value === undefined) return null;
  if (type === 'boolean') return !!value;
  return value;
}

async function columnTypes(target: Sql, table: string): Promise<Map<string, string>> {
  const rows = await targetRows<{ column_name: string; data_type: string }>(
    target,
    sql`SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ${table}`,
  );
  if (!rows.length) throw new CliError(`The target database has no table ${table}: schemas differ`);
  return new Map(rows.map((r) => [r.column_name, r.data_type]));
}

/*
 * Table and column names come from the source's catalogue, so the statements are written with
 * Kysely's sql template (sql.table / sql.id quote a name, every value is bound) and compiled in
 * each side's dialect (docs/database.md "One dialect"); never hot, so compiled per statement.
 */

/** A statement's rows from the SQLite source (better-sqlite3, opened by svc migrate). */
function sourceRows<R>(source: Database.Database, statement: RawBuilder<unknown>): R[] {
  const { sql: text, parameters } = statement.compile(QueryBuilder.for('sqlite').db);
  return source.prepare(text).all(...parameters) as R[];
}

/** A statement's rows from the target (its executor, or the copy's transaction). */
async function targetRows<R>(target: Sql, statement: RawBuilder<unknown>): Promise<R[]> {
  const { sql: text, parameters } = statement.compile(QueryBuilder.for(target.dialect).db);
  return target.query<R>(text, [...parameters]);
}

function quote(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

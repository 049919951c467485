/*
 * Writes src/database/query-builder/tables.ts, the tables as Kysely sees them (issue 41 item 1):
 * - the tables an entity declares, from the TypeORM entities' metadata (the entities stay the one
 *   declaration of the schema: a column added to an entity reaches the statements' types by
 *   running this, not by editing a second list by hand);
 * - the tables and columns no entity declares (FTS5, the counts kept by triggers, build_flags), from
 *   the migrations themselves: they are run on an in-memory SQLite database and the columns read
 *   back (`PRAGMA table_xinfo`); what only PostgreSQL has is declared by the migration that adds it
 *   (an exported POSTGRES_ONLY_COLUMNS, which its own statement reads).
 *   test/database/table-types compares the result with a migrated PostgreSQL database.
 *
 *   npm run db-types          writes the file
 *   npm run db-types:check    writes nothing; exit 1 when the committed file is stale
 *                             (test/database/table-types.e2e-spec.ts runs it in every test run)
 */
import 'reflect-metadata';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { DataSource, getMetadataArgsStorage } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';
import type { EntityMetadata } from 'typeorm/metadata/EntityMetadata';

const root = join(__dirname, '..');
export const TABLES_FILE = join(root, 'src', 'database', 'query-builder', 'tables.ts');
const MIGRATIONS_DIR = join(root, 'src', 'database', 'migrations');

/** One column as a statement reads and binds it. */
export interface ColumnDescription {
  name: string;
  /** `number`, `string`, `Bool` or `unknown`, with `| null` when nullable. */
  type: string;
  /** Inserts may leave it out: a generated id, a default, a column a trigger sets. */
  generated: boolean;
  /** Only this dialect has it (absent: both). */
  only?: 'sqlite' | 'postgres';
  /** Why it is there when its table's entity does not declare it. */
  note?: string;
}

export interface TableDescription {
  name: string;
  /** The doc comment of its type. */
  origin: string;
  columns: ColumnDescription[];
  /** Only this dialect has the table (absent: both). */
  only?: 'sqlite';
}

/** FTS5's shadow tables that are its internals; `<table>_content` is its documented content table, read by rowid. */
const FTS5_INTERNALS = ['_config', '_data', '_docsize', '_idx'];

/** Every entity file under src/ (`*.entity.ts`, `*.entities.ts`), in a stable order. */
function entityFiles(): string[] {
  return (readdirSync(join(root, 'src'), { recursive: true }) as string[])
    .filter((file) => /\.entit(y|ies)\.ts$/.test(file))
    .map((file) => join(root, 'src', file))
    .sort();
}

async function entityMetadatas(): Promise<EntityMetadata[]> {
  for (const file of entityFiles()) require(file);
  const entities = getMetadataArgsStorage().tables.map((table) => table.target as Function);
  const dataSource = new DataSource({ type: 'better-sqlite3', database: ':memory:', entities });
  // What initialize() does before it connects; protected in TypeORM's types, public at run time.
  await (dataSource as unknown as { buildMetadatas(): Promise<void> }).buildMetadatas();
  return [...dataSource.entityMetadatas].sort((a, b) => a.tableName.localeCompare(b.tableName));
}

/** The migration modules, in file order. */
function migrationModules(): Record<string, unknown>[] {
  return readdirSync(MIGRATIONS_DIR)
    .filter((file) => /^\d+-\w+\.ts$/.test(file))
    .sort()
    .map((file) => require(join(MIGRATIONS_DIR, file)) as Record<string, unknown>);
}

/** The migration classes (`Name` + 13-digit timestamp), oldest first. */
function migrationClasses(modules: Record<string, unknown>[]): Function[] {
  return modules.flatMap((exports) => Object.values(exports).filter((value): value is Function => typeof value === 'function' && /\d{13}$/.test(value.name)));
}

interface SqliteColumn {
  name: string;
  type: string;
  notnull: number;
  pk: number;
  dflt_value: string | null;
  hidden: number;
}

/** The tables and columns the migrations create, read back from a fresh in-memory SQLite database they ran on. */
async function migratedSqlite(modules: Record<string, unknown>[]): Promise<Map<string, { sql: string; columns: SqliteColumn[] }>> {
  const dataSource = new DataSource({ type: 'better-sqlite3', database: ':memory:', migrations: migrationClasses(modules) });
  await dataSource.initialize();
  try {
    await dataSource.runMigrations({ transaction: 'all' });
    const tables = (await dataSource.query("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name <> 'migrations' ORDER BY name")) as {
      name: string;
      sql: string;
    }[];
    const read = new Map<string, { sql: string; columns: SqliteColumn[] }>();
    for (const { name, sql } of tables) read.set(name, { sql, columns: (await dataSource.query('SELECT * FROM pragma_table_xinfo(?) ORDER BY cid', [name])) as SqliteColumn[] });
    return read;
  } finally {
    await dataSource.destroy();
  }
}

/** A declared SQL type (SQLite's or PostgreSQL's) as Kysely reads it; SQLite's affinity rules. */
function sqlValueType(declared: string): string {
  const type = declared.toUpperCase();
  if (type.includes('INT')) return 'number';
  if (/CHAR|CLOB|TEXT/.test(type)) return 'string';
  if (/BOOL/.test(type)) return 'Bool';
  if (/REAL|FLOA|DOUB|NUMERIC/.test(type)) return 'number';
  return 'unknown';
}

/** The column's type as a statement reads and binds it (both drivers; see the file's header). */
function entityValueType(column: ColumnMetadata): string {
  const type = typeof column.type === 'function' ? column.type.name.toLowerCase() : String(column.type).toLowerCase();
  let ts: string;
  if (['number', 'integer', 'int', 'bigint', 'real', 'float', 'double', 'numeric'].includes(type)) ts = 'number';
  else if (['varchar', 'text', 'string', 'character varying', 'char'].includes(type)) ts = 'string';
  else if (['boolean', 'bool'].includes(type)) ts = 'Bool';
  else throw new Error(`${column.entityMetadata.tableName}.${column.databaseName}: no Kysely type for the column type "${type}"; add it to scripts/generate-tables.ts`);
  return column.isNullable ? `${ts} | null` : ts;
}

/** A column of a migrated SQLite table that no entity declares. */
function sqliteColumn(table: string, column: SqliteColumn, fts5: { table: string; content: boolean } | null): ColumnDescription {
  let type = sqlValueType(column.type);
  // FTS5 declares no types: its columns (and the content table's c0, c1, … holding them) are text.
  if (fts5 && type === 'unknown' && (!fts5.content || /^c\d+$/.test(column.name))) type = 'string';
  if (type === 'unknown') throw new Error(`${table}.${column.name}: no Kysely type for the SQLite type "${column.type}"; add it to scripts/generate-tables.ts`);
  // A key column is never null (an INTEGER PRIMARY KEY is the rowid; PostgreSQL's keys are NOT NULL);
  // nor is the FTS5 column named after its table. Only a default makes a column optional in an insert:
  // these tables' keys are written by their triggers, and SQLite's rowid is no default on PostgreSQL.
  const nullable = !column.notnull && !column.pk && !(fts5 && column.hidden);
  return { name: column.name, type: nullable ? `${type} | null` : type, generated: column.dflt_value !== null };
}

/** The schema as the repositories' statements see it, on both dialects. */
export async function describeSchema(): Promise<TableDescription[]> {
  const metadatas = await entityMetadatas();
  const modules = migrationModules();
  const sqlite = await migratedSqlite(modules);
  const fts5Tables = [...sqlite].filter(([, t]) => /^CREATE VIRTUAL TABLE .* USING fts5\s*\(/i.test(t.sql)).map(([name]) => name);
  const tables: TableDescription[] = [];

  for (const metadata of metadatas) {
    const origin = `${metadata.tableType === 'junction' ? 'The join table of a many-to-many relation' : `Declared by ${metadata.targetName}`} (${relative(root, entityFileOf(metadata))}).`;
    const columns: ColumnDescription[] = metadata.columns.map((column) => ({
      name: column.databaseName,
      type: entityValueType(column),
      generated: column.isGenerated || column.default !== undefined,
    }));
    const declared = new Set(columns.map((c) => c.name));
    for (const column of sqlite.get(metadata.tableName)?.columns ?? []) {
      if (!declared.has(column.name)) columns.push({ ...sqliteColumn(metadata.tableName, column, null), note: 'created by a migration, not declared by the entity' });
    }
    tables.push({ name: metadata.tableName, origin, columns });
  }

  const byEntity = new Set(metadatas.map((m) => m.tableName));
  for (const [name, table] of sqlite) {
    if (byEntity.has(name)) continue;
    const ftsOwner = fts5Tables.find((fts) => name.startsWith(`${fts}_`));
    if (ftsOwner && FTS5_INTERNALS.includes(name.slice(ftsOwner.length))) continue;
    const isFts5 = fts5Tables.includes(name);
    const fts5 = isFts5 ? { table: name, content: false } : ftsOwner ? { table: ftsOwner, content: true } : null;
    // FTS5's hidden columns other than the one named after the table (the left side of MATCH) are its own (rank).
    const visible = table.columns.filter((column) => !column.hidden || column.name === name);
    const columns = visible.map((column) => sqliteColumn(name, column, fts5));
    if (isFts5) columns.unshift({ name: 'rowid', type: 'number', generated: false });
    const origin = isFts5
      ? 'SQLite only: an FTS5 table created by the migrations (rowid; the hidden column named after the table is the left side of MATCH).'
      : ftsOwner
        ? `SQLite only: FTS5's content table of \`${ftsOwner}\` (id = its rowid, c0, c1, … its columns).`
        : 'No entity: created by the migrations (read from a migrated SQLite database).';
    tables.push({ name, origin, columns, ...(fts5 ? { only: 'sqlite' as const } : {}) });
  }

  for (const exports of modules) {
    const postgresOnly = exports.POSTGRES_ONLY_COLUMNS as Record<string, Record<string, string>> | undefined;
    for (const [tableName, columns] of Object.entries(postgresOnly ?? {})) {
      const table = tables.find((t) => t.name === tableName);
      if (!table) throw new Error(`POSTGRES_ONLY_COLUMNS names ${tableName}, a table neither an entity nor the SQLite migrations have`);
      for (const [name, declared] of Object.entries(columns)) {
        table.columns.push({ name, type: `${sqlValueType(declared)} | null`, generated: true, only: 'postgres', note: 'PostgreSQL only (POSTGRES_ONLY_COLUMNS of its migration)' });
      }
    }
  }
  return tables.sort((a, b) => a.name.localeCompare(b.name));
}

const pascal = (table: string) => table.replace(/(^|_)([a-z0-9])/g, (_m, _u, c: string) => c.toUpperCase());

export async function generateTables(): Promise<string> {
  const tables = await describeSchema();
  const lines = [
    '// Generated by scripts/generate-tables.ts from the TypeORM entities and the migrations. Do not edit: run',
    '// `npm run db-types` after changing an entity or adding a migration (test/database/table-types checks that this file is current).',
    "import type { Generated } from 'kysely';",
    '',
    '/**',
    ' * The tables as Kysely sees them, for the statements of the repositories (docs/database.md "One dialect").',
    ' * Integers (ids, counts, epoch milliseconds as timestamp.column.ts stores them) are `number`;',
    ' * PostgreSQL gives bigint columns and COUNT(*) back as strings, so reads convert with Number().',
    " * The features' own types (roles, statuses, platforms) stay with the features.",
    ' */',
    '',
    '/** A boolean column: true/false on PostgreSQL, 1/0 on SQLite (bind QueryBuilder.bool()). */',
    'export type Bool = boolean | number;',
    '',
  ];
  for (const table of tables) {
    lines.push(`/** ${table.origin} */`, `export interface ${pascal(table.name)}Table {`);
    for (const column of table.columns) {
      if (column.note) lines.push(`  /** ${column.note}. */`);
      lines.push(`  ${column.name}: ${column.generated ? `Generated<${column.type}>` : column.type};`);
    }
    lines.push('}', '');
  }
  lines.push('export interface Database {');
  for (const table of tables) lines.push(`  ${table.name}: ${pascal(table.name)}Table;`);
  lines.push('}', '');
  return lines.join('\n');
}

/** The entity's file, found by its class name in the entity files (a junction: its owner's). */
function entityFileOf(metadata: EntityMetadata): string {
  const owner = metadata.tableType === 'junction' ? metadata.ownerColumns[0]?.referencedColumn?.entityMetadata ?? metadata : metadata;
  const name = owner.targetName;
  return entityFiles().find((file) => new RegExp(`export class ${name}\\b`).test(readFileSync(file, 'utf8'))) ?? TABLES_FILE;
}

async function main(): Promise<void> {
  const check = process.argv.includes('--check');
  const text = await generateTables();
  const current = existsSync(TABLES_FILE) ? readFileSync(TABLES_FILE, 'utf8') : '';
  const shown = relative(root, TABLES_FILE);
  if (check) {
    if (current !== text) {
      process.stderr.write(`${shown} is not what the entities and the migrations declare: run \`npm run db-types\` and commit it.\n`);
      process.exit(1);
    }
    process.stdout.write(`${shown} matches the entities and the migrations.\n`);
    return;
  }
  if (current !== text) writeFileSync(TABLES_FILE, text);
  process.stdout.write(`wrote ${shown}\n`);
}

if (require.main === module) {
  main().catch((err) => {
    process.stderr.write(`${err.stack ?? err}\n`);
    process.exit(1);
  });
}

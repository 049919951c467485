/*
 * `npm run sql-snapshots` writes the SQL of the hot paths' statements (sql-snapshots/hot-statements.ts)
 * for SQLite and PostgreSQL into src/database/sql/<name>.<dialect>.sql; `npm run sql-snapshots:check`
 * (part of `npm test`) fails when a file differs from what the code compiles, or is missing or extra.
 * Compile-only: no database is opened.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { QueryBuilder } from '../src/database/query-builder/query-builder';
import { HOT_STATEMENTS } from './sql-snapshots/hot-statements';

const DIR = join(__dirname, '..', 'src', 'database', 'sql');
const check = process.argv.includes('--check');

const expected = new Map<string, string>();
for (const dialect of ['sqlite', 'postgres'] as const) {
  const sql = QueryBuilder.for(dialect);
  for (const statement of HOT_STATEMENTS) expected.set(`${statement.name}.${dialect}.sql`, `${format(statement.prepare(sql).sql)}\n`);
}

const present = existsSync(DIR) ? readdirSync(DIR).filter((file) => file.endsWith('.sql')) : [];
const stale = [...expected].filter(([file, text]) => !existsSync(join(DIR, file)) || readFileSync(join(DIR, file), 'utf8') !== text).map(([file]) => file);
const extra = present.filter((file) => !expected.has(file));

if (check) {
  if (stale.length || extra.length) {
    for (const file of stale) console.error(`src/database/sql/${file}: not what the code compiles`);
    for (const file of extra) console.error(`src/database/sql/${file}: no statement writes it`);
    console.error('Run `npm run sql-snapshots` and review the diff of the SQL.');
    process.exit(1);
  }
  console.log(`${expected.size} SQL snapshots match the code.`);
} else {
  mkdirSync(DIR, { recursive: true });
  for (const file of extra) rmSync(join(DIR, file));
  for (const file of stale) writeFileSync(join(DIR, file), expected.get(file)!);
  console.log(`${stale.length} written, ${extra.length} removed, ${expected.size - stale.length} unchanged (src/database/sql/).`);
}

/** One clause a line, so a diff points at the clause that changed (the text the relay sends is one line). */
function format(sql: string): string {
  return sql.replace(/ (from|inner join|left join|where|group by|having|order by|limit|offset|union all|union|returning|values|set) /g, '\n$1 ');
}

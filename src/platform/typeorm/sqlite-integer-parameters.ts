import type { DataSource, ObjectLiteral } from 'typeorm';

type Escape = (sql: string, parameters: ObjectLiteral, nativeParameters: ObjectLiteral) => [string, unknown[]];

/**
 * TypeORM's SQLite driver writes every number parameter into the SQL text (`WHERE "id" = 7223`), so
 * each insert, update and find by id is a statement SQLite has never seen: it is parsed and planned
 * again, it pushes the statements that do repeat out of TypeORM's statement cache, and each dead
 * statement keeps its native memory, which V8 cannot see, until a full collection. Under the
 * mixed-load benchmark that was 21,000 new statements a minute and ~250 MB of RSS (docs/decisions.md,
 * item 50). Integers go in as BigInt instead, which TypeORM binds like any other value and
 * better-sqlite3 binds as an SQLite INTEGER: what the literal was. Other numbers keep TypeORM's way.
 */
export function bindIntegerParameters(dataSource: DataSource): void {
  const driver = dataSource.driver as unknown as { escapeQueryWithParameters: Escape };
  const escape = driver.escapeQueryWithParameters.bind(driver);
  driver.escapeQueryWithParameters = (sql, parameters, nativeParameters) => escape(sql, integersAsBigInt(parameters), nativeParameters);
}

function integersAsBigInt(parameters: ObjectLiteral): ObjectLiteral {
  let copy: ObjectLiteral | undefined;
  for (const key in parameters) {
    const value: unknown = parameters[key];
    if (typeof value === 'number' && Number.isSafeInteger(value)) {
      copy ??= { ...parameters };
      copy[key] = BigInt(value);
    }
  }
  return copy ?? parameters;
}

/**
 * The driver's error behind a failed statement: better-sqlite3's SqliteError or pg's DatabaseError
 * as the SqlExecutor throws them (both carry `code`), or the one TypeORM wraps in a QueryFailedError
 * (its `driverError`; the migrations, and builds' TypeORM finds until they are Kysely).
 */
function driverError(err: unknown): { code?: unknown; message?: unknown } | null {
  if (typeof err !== 'object' || err === null) return null;
  const wrapped = (err as { driverError?: unknown }).driverError;
  return (typeof wrapped === 'object' && wrapped !== null ? wrapped : err) as { code?: unknown; message?: unknown };
}

/** True when a write failed on a UNIQUE constraint (SQLite or PostgreSQL), e.g. two parallel sign-ups. */
export function isUniqueViolation(err: unknown): boolean {
  const driver = driverError(err);
  return driver !== null && (driver.code === '23505' || /^SQLITE_CONSTRAINT_(UNIQUE|PRIMARYKEY)$/.test(String(driver.code)));
}

/** True when a write failed on a FOREIGN KEY constraint (SQLite or PostgreSQL), e.g. the referenced row was deleted meanwhile. */
export function isForeignKeyViolation(err: unknown): boolean {
  const driver = driverError(err);
  return driver !== null && (driver.code === '23503' || driver.code === 'SQLITE_CONSTRAINT_FOREIGNKEY');
}

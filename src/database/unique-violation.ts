import { QueryFailedError } from 'typeorm';

/** True when a write failed on a UNIQUE constraint (SQLite or PostgreSQL), e.g. two parallel sign-ups. */
export function isUniqueViolation(err: unknown): boolean {
  if (!(err instanceof QueryFailedError)) return false;
  const driverError = err.driverError as { code?: string } | undefined;
  return driverError?.code === '23505' || /SQLITE_CONSTRAINT_UNIQUE|UNIQUE constraint failed/.test(`${driverError?.code} ${err.message}`);
}

/** True when a write failed on a FOREIGN KEY constraint (SQLite or PostgreSQL), e.g. the referenced row was deleted meanwhile. */
export function isForeignKeyViolation(err: unknown): boolean {
  if (!(err instanceof QueryFailedError)) return false;
  const driverError = err.driverError as { code?: string } | undefined;
  return driverError?.code === '23503' || /SQLITE_CONSTRAINT_FOREIGNKEY|FOREIGN KEY constraint failed/.test(`${driverError?.code} ${err.message}`);
}

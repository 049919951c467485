import { Column, ColumnOptions, FindOperator, LessThan, LessThanOrEqual, MoreThan, MoreThanOrEqual, ValueTransformer } from 'typeorm';

/**
 * Times are stored as UTC epoch milliseconds in a bigint column: the same type and the same
 * ordering on SQLite and PostgreSQL, no time-zone conversions by drivers. (PostgreSQL returns
 * bigint as a string; the transformer turns both back into a Date.)
 */
const epochMillis: ValueTransformer = {
  to: (value: unknown) => (value instanceof Date ? value.getTime() : value),
  from: (value: string | number | null) => (value == null ? null : new Date(Number(value))),
};

export function TimestampColumn(options: Omit<ColumnOptions, 'type' | 'transformer'> = {}) {
  return Column({ ...options, type: 'bigint', transformer: epochMillis });
}

/**
 * Comparisons on timestamp columns. TypeORM does not run column transformers inside find
 * operators on every path (delete/update), so these bind the epoch number directly.
 */
type TimeOperator = FindOperator<Date>;
const epoch = (date: Date) => date.getTime() as unknown as Date;
export const Before = (date: Date): TimeOperator => LessThan(epoch(date));
export const AtOrBefore = (date: Date): TimeOperator => LessThanOrEqual(epoch(date));
export const After = (date: Date): TimeOperator => MoreThan(epoch(date));
export const AtOrAfter = (date: Date): TimeOperator => MoreThanOrEqual(epoch(date));

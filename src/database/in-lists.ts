/**
 * Values per `IN (…)` list in one statement. SQLite refuses statements with more bound variables
 * than its limit (999 in older builds, 32,766 since 3.32) and PostgreSQL more than 65,535, so a
 * lookup of many ids runs as several statements of this size (issue 36: a SCIM group of 45,000
 * member ids answered 500 "too many SQL variables").
 */
export const IN_LIST_MAX = 500;

/** `values` cut into lists of at most IN_LIST_MAX, in order. */
export function inLists<T>(values: readonly T[]): T[][] {
  const lists: T[][] = [];
  for (let i = 0; i < values.length; i += IN_LIST_MAX) lists.push(values.slice(i, i + IN_LIST_MAX));
  return lists;
}

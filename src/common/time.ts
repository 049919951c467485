/** The three ways the spec renders a time; every response goes through one of these. All UTC. */

/** `2026-11-21T10:15:30.123Z`: the spec's default `<timestamp>`. */
export function isoWithMillis(date: Date): string {
  return date.toISOString();
}

/** `2026-11-21T10:15:30Z`: agent resource samples' `recorded_at`. */
export function isoWithoutMillis(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** `2026-11-21 10:15:30`: webhook `created_at` and `delete_after` of schedule-deletion. */
export function sqlDateTime(date: Date): string {
  return date.toISOString().slice(0, 19).replace('T', ' ');
}

export function nullableIso(date: Date | null | undefined): string | null {
  return date ? isoWithMillis(date) : null;
}

export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;

import { Transform } from 'class-transformer';
import { MAX_ID } from './parse-id.pipe';

/**
 * Composite helpers for values that arrive as strings (query strings, multipart fields) but mean
 * numbers, and for JSON fields where `null` (clear it) differs from absent (leave it alone).
 */

/** "12" → 12; anything not a plain decimal integer stays as is so @IsInt() reports it. */
export const ToInteger = () =>
  Transform(({ value }) => (typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value.trim()) : value));

/**
 * Ids in a query string, by readId's rule: a plain positive decimal integer becomes a number (one
 * past MAX_ID, however long, becomes MAX_ID + 1: no row has it); anything else stays as is so
 * @IsInt() reports it.
 */
export const ToId = () =>
  Transform(({ value }) => (typeof value === 'string' && /^[1-9]\d*$/.test(value) ? Math.min(Number(value), MAX_ID + 1) : value));

/** Trims strings; leaves other values for the validators to judge. */
export const Trim = () => Transform(({ value }) => (typeof value === 'string' ? value.trim() : value));

/** Form text that may be left blank: trimmed, and blank counts as omitted (HTML forms send blank inputs). */
export const BlankAsAbsent = () =>
  Transform(({ value }) => (typeof value === 'string' ? value.trim() || undefined : value));

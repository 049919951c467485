import { Transform } from 'class-transformer';

/**
 * Composite helpers for values that arrive as strings (query strings, multipart fields) but mean
 * numbers, and for JSON fields where `null` (clear it) differs from absent (leave it alone).
 */

/** "12" → 12; anything not a plain decimal integer stays as is so @IsInt() reports it. */
export const ToInteger = () =>
  Transform(({ value }) => (typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value.trim()) : value));

/** Trims strings; leaves other values for the validators to judge. */
export const Trim = () => Transform(({ value }) => (typeof value === 'string' ? value.trim() : value));

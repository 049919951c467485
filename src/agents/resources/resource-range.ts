import { badRequest } from '../../common/errors/http-error';
import { DAY_MS, HOUR_MS } from '../../common/time';

const RANGES: Record<string, number> = { '1h': HOUR_MS, '6h': 6 * HOUR_MS, '24h': DAY_MS, '7d': 7 * DAY_MS };

/** `range` of GET /agents/:name/resources (spec §4): 1h, 6h, 24h or 7d; absent = 1h; anything else 400. */
export function parseResourceRange(value: unknown): number {
  if (value === undefined) return RANGES['1h'];
  if (typeof value === 'string' && Object.hasOwn(RANGES, value)) return RANGES[value];
  throw badRequest('range must be one of 1h, 6h, 24h, 7d');
}

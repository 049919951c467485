import { HttpStatus } from '@nestjs/common';
import { ScimError } from './scim-error';

/** One comparison of a SCIM filter (RFC 7644 §3.4.2.2) that the relay answers: `eq` or `sw`. */
export interface ScimFilter {
  attribute: string;
  operator: 'eq' | 'sw';
  value: string;
}

/**
 * Parses `attr eq "value"` / `attr sw "value"` (operators and attribute names case-insensitive,
 * the value a JSON string). Anything else — other operators, `and`/`or`, value paths — is 400
 * `invalidFilter` rather than a wrong answer: identity providers send exactly these forms to find a
 * user or group before creating it.
 */
export function parseScimFilter(filter: string | undefined, attributes: readonly string[]): ScimFilter | null {
  if (filter === undefined || filter.trim() === '') return null;
  const match = /^\s*([A-Za-z][\w.:-]*)\s+(eq|sw)\s+("(?:[^"\\]|\\.)*")\s*$/i.exec(filter);
  if (!match) throw new ScimError(HttpStatus.BAD_REQUEST, 'The filter must be `<attribute> eq "<value>"` or `<attribute> sw "<value>"`', 'invalidFilter');
  const attribute = attributes.find((a) => a.toLowerCase() === match[1].toLowerCase());
  if (!attribute) throw new ScimError(HttpStatus.BAD_REQUEST, `Filtering is supported on ${attributes.join(', ')}`, 'invalidFilter');
  let value: string;
  try {
    value = JSON.parse(match[3]) as string;
  } catch {
    throw new ScimError(HttpStatus.BAD_REQUEST, 'The filter value is not a valid string', 'invalidFilter');
  }
  return { attribute, operator: match[2].toLowerCase() as 'eq' | 'sw', value };
}

/** Case-insensitive, as RFC 7643 makes userName and displayName (caseExact false). */
export function matchesFilter(actual: string | null, filter: ScimFilter): boolean {
  if (actual === null) return false;
  const a = actual.toLowerCase();
  const v = filter.value.toLowerCase();
  return filter.operator === 'eq' ? a === v : a.startsWith(v);
}

import { Injectable, PipeTransform } from '@nestjs/common';
import { badRequest, notFound } from '../errors/http-error';

/** Largest id a row can have: every id column is a 32-bit `integer` (SQLite and PostgreSQL alike). */
export const MAX_ID = 2_147_483_647;

/**
 * The one rule for ids clients send (path, query string, form field; docs/architecture.md "Ids"):
 * only a plain positive decimal integer is an id, so "1x", "-1", "1e3", "01" or "" are malformed
 * (400 `<field> must be a positive integer`), never a different row or a 500. A well-formed id past
 * MAX_ID names no row (none can have it) and is answered like any id without a row: returns null,
 * and the caller answers 404 for a lookup or an empty result for a filter. The database never sees
 * it (PostgreSQL refuses it as out of range for `integer`).
 */
export function readId(value: unknown, field: string): number | null {
  const text = typeof value === 'string' ? value : '';
  if (!/^[1-9]\d*$/.test(text)) throw badRequest(`${field} must be a positive integer`);
  return text.length <= 10 && Number(text) <= MAX_ID ? Number(text) : null;
}

/** Path ids (`:id`): readId's rule, with `notFoundMessage` (the resource's 404) for ids past MAX_ID. */
@Injectable()
export class ParseIdPipe implements PipeTransform<string, number> {
  constructor(private readonly notFoundMessage: string) {}

  transform(value: string): number {
    const id = readId(value, 'id');
    if (id === null) throw notFound(this.notFoundMessage);
    return id;
  }
}

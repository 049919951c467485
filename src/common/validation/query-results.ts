import type { ArgumentMetadata } from '@nestjs/common';
import { badRequest, HttpError } from '../errors/http-error';

/** Distinct query strings remembered per DTO class; past it the oldest is forgotten (first in, first out). */
export const MAX_REMEMBERED_QUERIES = 256;

/** A query string longer than this (as JSON) is validated every time rather than remembered. */
const MAX_KEY_LENGTH = 512;

type Remembered = { fields: Record<string, unknown> } | { refusal: string };

/** Class metadata: the DTO's validation results may be remembered (RememberQueryResults). */
const REMEMBER = Symbol('remember query results');

/**
 * Marks a query DTO whose validation results the pipe remembers by the query string's text
 * (QueryResults). Opt-in, and only where it was measured to help: GET /builds (ListBuildsQuery,
 * docs/decisions.md#item-34), asked again and again with the same few strings. Its transforms must
 * read nothing but the query's text, and its fields must all be primitives.
 */
export function RememberQueryResults(): ClassDecorator {
  return (target) => Reflect.defineMetadata(REMEMBER, true, target);
}

/**
 * The validation pipe's results for whole query strings bound to a DTO marked
 * @RememberQueryResults() (`@Query() query: ListBuildsQuery`), by the query's text:
 * class-transformer and class-validator cost ~30 µs a GET /builds (~5 % of it,
 * docs/decisions.md#item-34). Validating such a query is a pure function of its text, so a
 * remembered result is what the pipe would compute again: a new DTO of the class with the same
 * fields, or a new 400 with the same message. Only DTOs whose every field is a primitive are
 * remembered (a copy shares nothing mutable), only 400s the pipe itself raised (any other error is
 * thrown as it came), and only short query strings, so what is kept is bounded.
 */
export class QueryResults {
  private readonly byClass = new Map<Function, Map<string, Remembered>>();

  /** A hit is answered at once (the DTO, or the 400 thrown); a miss validates and remembers what it gave. */
  remembered(value: unknown, metadata: ArgumentMetadata, validate: () => Promise<unknown>): unknown {
    const { metatype } = metadata;
    const key = metadata.type === 'query' && metadata.data === undefined && isMarked(metatype) && isStringRecord(value) ? JSON.stringify(value) : undefined;
    if (key === undefined || key.length > MAX_KEY_LENGTH) return validate();
    let results = this.byClass.get(metatype!);
    const hit = results?.get(key);
    if (hit) {
      if ('refusal' in hit) throw badRequest(hit.refusal);
      return Object.assign(new (metatype as new () => object)(), hit.fields);
    }
    if (!results) this.byClass.set(metatype!, (results = new Map()));
    return this.validateAndRemember(results, key, metatype!, validate);
  }

  private async validateAndRemember(results: Map<string, Remembered>, key: string, metatype: Function, validate: () => Promise<unknown>): Promise<unknown> {
    let remembered: Remembered | undefined;
    try {
      const dto = await validate();
      if (dto instanceof metatype && Object.values(dto).every(isPrimitive)) remembered = { fields: { ...dto } };
      return dto;
    } catch (err) {
      if (err instanceof HttpError && err.getStatus() === 400 && !Object.keys(err.headers).length && typeof err.getResponse() === 'string') {
        remembered = { refusal: err.getResponse() as string };
      }
      throw err;
    } finally {
      if (remembered) {
        results.set(key, remembered);
        if (results.size > MAX_REMEMBERED_QUERIES) results.delete(results.keys().next().value!);
      }
    }
  }
}

function isMarked(metatype: ArgumentMetadata['metatype']): metatype is new () => object {
  // Own metadata: a subclass of a marked DTO may add what makes remembering wrong, so it opts in itself.
  return typeof metatype === 'function' && Reflect.getOwnMetadata(REMEMBER, metatype) === true;
}

/** A parsed query string: each value a string or a list of strings. */
function isStringRecord(value: unknown): value is Record<string, string | string[]> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  for (const key in value) {
    const field = (value as Record<string, unknown>)[key];
    if (typeof field !== 'string' && !(Array.isArray(field) && field.every((item) => typeof item === 'string'))) return false;
  }
  return true;
}

function isPrimitive(value: unknown): boolean {
  return value === null || (typeof value !== 'object' && typeof value !== 'function');
}

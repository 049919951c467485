import { createHash } from 'node:crypto';
import { Client } from 'pg';

const query = Client.prototype.query as unknown as (this: Client, ...args: unknown[]) => never;

/** Named statements kept per connection at most; past it, new texts go unnamed (planned each time). */
const MAX_NAMED_PER_CONNECTION = 500;

/** The statement names of texts seen, process-wide; past this many the oldest is dropped (and hashed again if it comes back). */
const MAX_REMEMBERED_NAMES = 2_000;
const names = new Map<string, string>();

/** Statements worth naming: those the relay runs again and again with new values. */
const NAMED = /^\s*(?:SELECT|INSERT|UPDATE|DELETE|WITH)\b/i;

/**
 * A text's statement name, a digest of the text, so every connection names it alike: hashed once
 * per text, then found by the text itself (V8 keeps a string's hash in the string). Hashing it on
 * every query cost GET /builds ~12 µs of CPU per request, most of it turning the text into UTF-8.
 */
function nameOf(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    name = `svc_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
    names.set(text, name);
    if (names.size > MAX_REMEMBERED_NAMES) names.delete(names.keys().next().value!);
  }
  return name;
}

/**
 * The PostgreSQL connection the relay's pool uses (pg's `Client` option): a parameterised statement
 * (SELECT, INSERT, UPDATE, DELETE, WITH) is sent as a named statement, so each connection parses it
 * once and PostgreSQL may keep its plan, instead of parsing and planning it on every request. On
 * GET /builds planning was more of the database's time than running the statements
 * (docs/decisions.md#p2); an upload is a dozen writes (issue 42). TypeORM sends every statement
 * unnamed. SQLite has the same through its statement cache (data-source-options). Never DDL: the
 * relay changes the schema only in migrations, before it serves.
 */
export class PreparingClient extends Client {
  private readonly named = new Set<string>();

  // (text, values) as TypeORM sends it, or a config object without a name (TransactionRunner.selectArrays,
  // rowMode 'array'; pg's Pool passes it on as (config, undefined, callback)); pg's other overloads
  // (callbacks after a text, submittables) pass through untouched.
  query(...args: unknown[]): never {
    const [first, values] = args;
    const config: { text?: unknown; values?: unknown; name?: unknown } | null =
      typeof first === 'string' && args.length === 2 ? { text: first, values } : isConfig(first) && values === undefined ? first : null;
    const text = config?.text;
    if (config && typeof text === 'string' && Array.isArray(config.values) && config.values.length && NAMED.test(text)) {
      const name = nameOf(text);
      if (this.named.has(name) || this.named.size < MAX_NAMED_PER_CONNECTION) {
        this.named.add(name);
        return query.call(this, { ...config, name }, ...args.slice(typeof first === 'string' ? 2 : 1));
      }
    }
    return query.apply(this, args);
  }
}

function isConfig(value: unknown): value is { text: unknown; values?: unknown; name?: unknown } {
  return typeof value === 'object' && value !== null && 'text' in value && !('name' in value) && typeof (value as { submit?: unknown }).submit !== 'function';
}

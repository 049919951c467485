import { createHash } from 'node:crypto';
import { Client } from 'pg';

const query = Client.prototype.query as unknown as (this: Client, ...args: unknown[]) => never;

/** Named statements kept per connection at most; past it, new texts go unnamed (planned each time). */
const MAX_NAMED_PER_CONNECTION = 500;

/**
 * The PostgreSQL connection the relay's pool uses (pg's `Client` option): a parameterised SELECT is
 * sent as a named statement, so each connection parses it once and PostgreSQL may keep its plan,
 * instead of parsing and planning it on every request. On GET /builds planning was more of the
 * database's time than running the statements (docs/performance.md); TypeORM sends every statement
 * unnamed. SQLite has the same through its statement cache (data-source-options). Only SELECTs:
 * they never change the schema, and the relay changes it only in migrations before serving.
 */
export class PreparingClient extends Client {
  private readonly named = new Set<string>();

  // pg's overloads (config objects, callbacks, submittables) pass through untouched.
  query(...args: unknown[]): never {
    const [text, values] = args;
    if (typeof text === 'string' && Array.isArray(values) && values.length && args.length === 2 && /^\s*SELECT\b/i.test(text)) {
      const name = `svc_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
      if (this.named.has(name) || this.named.size < MAX_NAMED_PER_CONNECTION) {
        this.named.add(name);
        return query.call(this, { name, text, values });
      }
    }
    return query.apply(this, args);
  }
}

import { hash } from 'node:crypto';

/** Express's tag of an empty body (the `etag` package's constant). */
const EMPTY = 'W/"0-2jmj7l5rSw0yVb/vlWAYkK/YBwk"';

/**
 * Express's default weak ETag (`W/"<length in hex>-<27 characters of the body's base64 SHA-1>"`),
 * the same bytes, given to `app.set('etag', …)`: one crypto.hash call instead of a Hash object,
 * for every JSON answer (issue 42).
 */
export function weakETag(body: string | Buffer, encoding?: BufferEncoding): string {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body, encoding);
  if (bytes.length === 0) return EMPTY;
  return `W/"${bytes.length.toString(16)}-${hash('sha1', bytes, 'base64').slice(0, 27)}"`;
}

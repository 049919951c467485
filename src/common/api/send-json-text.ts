import type { Response } from 'express';

const JSON_UTF8 = 'application/json; charset=utf-8';

/**
 * Answers 200 with JSON already written as text (GET /builds: buildListJson), exactly as Express's
 * `res.send` answers a string under `@Header('Content-Type', 'application/json; charset=utf-8')`:
 * the same headers in the same order (Content-Type, Content-Length, the app's ETag), 304 with
 * neither body nor entity headers when the client's If-None-Match is fresh, no body for HEAD.
 * Without parsing and formatting the Content-Type twice on the way (Nest's @Header through
 * `res.set`, then `res.send` adding the charset), which cost more than the ETag's hash.
 * `send-json-text.spec` compares both answers byte for byte.
 */
export function sendJsonText(res: Response, text: string): void {
  const body = Buffer.from(text, 'utf8');
  res.setHeader('Content-Type', JSON_UTF8);
  res.setHeader('Content-Length', String(body.length));
  const etagFn = res.app.get('etag fn') as ((body: Buffer, encoding?: string) => string | undefined) | undefined;
  const etag = typeof etagFn === 'function' && !res.getHeader('ETag') ? etagFn(body) : undefined;
  if (etag) res.setHeader('ETag', etag);
  if (res.req.fresh) {
    res.statusCode = 304;
    res.removeHeader('Content-Type');
    res.removeHeader('Content-Length');
    res.removeHeader('Transfer-Encoding');
    res.end();
    return;
  }
  if (res.req.method === 'HEAD') res.end();
  else res.end(body);
}

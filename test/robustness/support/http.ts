import { readdirSync, statSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join, relative } from 'node:path';
import { STORED_FOLDERS } from '../../../src/storage/file-store';
import type { TestRelay } from '../../support/test-relay';

/** A response read in full, whatever its status or content type. */
export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export interface RawRequest {
  method: string;
  /** Sent as-is on the request line (already percent-encoded where needed). */
  path: string;
  headers?: Record<string, string>;
  body?: Buffer | string;
}

/**
 * Plain node:http, so tests can send what supertest would refuse or fix up: raw paths, wrong
 * content types, bodies on GET, malformed multipart. A `text/event-stream` answer resolves with
 * its status and headers (and an empty text) as soon as they arrive, and the stream is closed.
 */
export function send(baseUrl: string, req: RawRequest, timeoutMs = 10_000): Promise<RawResponse> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const body = req.body === undefined ? undefined : Buffer.isBuffer(req.body) ? req.body : Buffer.from(req.body);
    const headers: Record<string, string> = { ...(req.headers ?? {}) };
    if (body) headers['content-length'] = String(body.length);
    const r = httpRequest(
      { host: url.hostname, port: url.port, method: req.method, path: req.path, headers, agent: false },
      (res) => {
        if (/^text\/event-stream\b/i.test(String(res.headers['content-type'] ?? ''))) {
          // a server-sent-event stream never ends by itself: answered once its headers are in
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: '' });
          r.destroy();
          return;
        }
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    r.setTimeout(timeoutMs, () => r.destroy(new Error(`${req.method} ${req.path} got no answer within ${timeoutMs} ms`)));
    r.on('error', reject);
    r.end(body);
  });
}

/**
 * The relay's error contract (spec §1/§7): never a 5xx; every non-2xx answer is JSON
 * `{ "error": "<non-empty message>" }` and nothing else. Returns a description of the breach, or null.
 * `json-rpc`: the MCP endpoint, whose transport refuses in JSON-RPC 2.0 (`{ jsonrpc, error: { code,
 * message }, id }`) as the MCP specification requires; `{ error }` is accepted there too.
 */
/** A JSON request to `/api/v1<path>` of a relay at `baseUrl`: the status and the parsed body (null when empty). */
export async function sendJson(
  baseUrl: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any }> {
  const res = await send(baseUrl, {
    method,
    path: `/api/v1${path}`,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: res.text ? JSON.parse(res.text) : null };
}

export function contractBreach(res: RawResponse, what: string, shape: 'relay' | 'json-rpc' | 'html-page' = 'relay'): string | null {
  if (res.status >= 500) return `${what} → ${res.status} ${res.text.slice(0, 300)}`;
  if (res.status < 300) return null;
  if (res.status === 304) return null;
  const type = String(res.headers['content-type'] ?? '');
  // A page for people (the share link's install page) refuses with a page (docs/builds.md "Share links");
  // what the body parsers refuse before any route is reached is the relay's usual { error }.
  if (shape === 'html-page' && /^text\/html\b/i.test(type)) return null;
  if (!/^application\/json\b/i.test(type)) return `${what} → ${res.status} with content type "${type}": ${res.text.slice(0, 200)}`;
  let body: unknown;
  try {
    body = JSON.parse(res.text);
  } catch {
    return `${what} → ${res.status} with a body that is not JSON: ${res.text.slice(0, 200)}`;
  }
  if (shape === 'json-rpc' && isJsonRpcError(body)) return null;
  const keys = body && typeof body === 'object' && !Array.isArray(body) ? Object.keys(body) : null;
  const message = (body as { error?: unknown })?.error;
  if (!keys || keys.length !== 1 || keys[0] !== 'error' || typeof message !== 'string' || !message.trim()) {
    return `${what} → ${res.status} with body ${res.text.slice(0, 200)} (expected exactly { error: "<message>" })`;
  }
  return null;
}

/** A JSON-RPC 2.0 error answer: what the MCP transport sends for its own refusals (docs/mcp.md). */
function isJsonRpcError(body: unknown): boolean {
  const error = (body as { jsonrpc?: unknown; error?: { code?: unknown; message?: unknown } } | null)?.error;
  return (
    (body as { jsonrpc?: unknown }).jsonrpc === '2.0' &&
    typeof error?.code === 'number' &&
    typeof error.message === 'string' &&
    error.message.trim() !== ''
  );
}

/** Every file under `dir` (relative paths, sorted), for before/after comparisons of the data dir. */
export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    let names: string[];
    try {
      names = readdirSync(d);
    } catch {
      return;
    }
    for (const name of names) {
      const full = join(d, name);
      const info = statSync(full, { throwIfNoEntry: false });
      if (info?.isDirectory()) walk(full);
      else if (info) out.push(relative(dir, full));
    }
  };
  walk(dir);
  return out.sort();
}

/**
 * Stored files of a relay: everything in its data dir but the database and its WAL sidecars, and,
 * when it stores in S3 (SVC_TEST_STORAGE=s3), every object of its store's folders too.
 */
export async function storedFiles(relay: TestRelay): Promise<string[]> {
  const local = filesUnder(relay.dataDir).filter((f) => !/^svc\.sqlite(-wal|-shm|-journal)?$/.test(f));
  if (!relay.s3) return local;
  const remote = await Promise.all(STORED_FOLDERS.map(async (folder) => (await relay.storedFiles(folder)).map((name) => `s3:${folder}${name}`)));
  return [...local, ...remote.flat()].sort();
}

/** Polls `check` until it returns true (or gives up after `ms`); for clean-ups that finish after the answer. */
export async function eventually(check: () => boolean | Promise<boolean>, ms = 3000): Promise<boolean> {
  const until = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A multipart/form-data body built by hand, so tests control every byte (including malformed ones). */
export function multipartBody(
  boundary: string,
  parts: { name: string; value: string | Buffer; filename?: string; type?: string }[],
  close = true,
): Buffer {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const disposition = `form-data; name="${p.name}"${p.filename !== undefined ? `; filename="${p.filename}"` : ''}`;
    const head = `--${boundary}\r\nContent-Disposition: ${disposition}\r\n${p.type ? `Content-Type: ${p.type}\r\n` : ''}\r\n`;
    chunks.push(Buffer.from(head), Buffer.isBuffer(p.value) ? p.value : Buffer.from(p.value), Buffer.from('\r\n'));
  }
  if (close) chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

/** A fresh relay's first Admin (/auth/init, admin@example.com), signed in: the session cookie. */
export async function firstAdminCookie(baseUrl: string): Promise<string> {
  const credentials = { email: 'admin@example.com', password: 'correct horse battery' };
  const init = await sendJson(baseUrl, 'POST', '/auth/init', credentials);
  if (init.status !== 201) throw new Error(`/auth/init answered ${init.status}`);
  const login = await send(baseUrl, { method: 'POST', path: '/api/v1/auth/login', headers: { 'content-type': 'application/json' }, body: JSON.stringify(credentials) });
  return String(login.headers['set-cookie']).split(';')[0];
}

import { createReadStream, createWriteStream, renameSync, rmSync } from 'node:fs';
import http, { IncomingMessage } from 'node:http';
import https from 'node:https';
import { pipeline } from 'node:stream/promises';
import { CliError, RelayRefusedError, RelayUnreachableError } from './client-errors';
import { MultipartFile, MultipartStream } from './multipart-stream';
import type { Connection } from './connection';
import { notTheApiMessage, unauthorizedHint } from './refusal-hints';

export type { Connection } from './connection';

export type Query = Record<string, string | number | undefined>;

const ERROR_BODY_LIMIT = 64 * 1024;

/**
 * The REST API of one relay, spoken with node:http so bodies stream both ways: an upload is read
 * from disk as it is sent (never held in memory) and a download is written to disk as it arrives.
 * Any status >= 400 becomes a RelayRefusedError carrying the relay's `{ error }` message.
 */
export class RelayClient {
  constructor(private readonly connection: Connection) {}

  async getJson<T>(path: string, query: Query = {}): Promise<T> {
    const res = await this.send('GET', path, query, { Accept: 'application/json' });
    return (await readJson(res)) as T;
  }

  /** A JSON request body (small: a few fields) and its JSON answer. */
  async postJson<T>(path: string, body: unknown = {}): Promise<T> {
    const text = Buffer.from(JSON.stringify(body));
    const headers = { 'Content-Type': 'application/json', 'Content-Length': String(text.length), Accept: 'application/json' };
    const res = await this.send('POST', path, {}, headers, (req) => req.end(text));
    return (await readJson(res)) as T;
  }

  /** A small binary answer (a screenshot) held in memory, with its Content-Type; refused past `limit` bytes. */
  async getBinary(path: string, query: Query = {}, limit = 32 * 1024 * 1024): Promise<{ data: Buffer; mime: string }> {
    const res = await this.send('GET', path, query, {});
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res) {
      size += chunk.length;
      if (size > limit) {
        res.destroy();
        throw new CliError(`The relay's answer is larger than ${limit} bytes`);
      }
      chunks.push(chunk);
    }
    return { data: Buffer.concat(chunks), mime: String(res.headers['content-type'] ?? 'application/octet-stream').split(';')[0] };
  }

  /** Streams a multipart upload (fields first, then the file if any) with an exact Content-Length. */
  async postMultipart<T>(
    path: string,
    fields: Record<string, string | undefined>,
    file: MultipartFile | null,
    onProgress?: (bytes: number) => void,
  ): Promise<T> {
    const body = new MultipartStream(fields, file);
    const res = await this.send(
      'POST',
      path,
      {},
      { 'Content-Type': body.contentType, 'Content-Length': String(body.length), Accept: 'application/json' },
      (req) => body.pipeTo(req, file ? createReadStream(file.path) : null, onProgress),
    );
    return (await readJson(res)) as T;
  }

  /**
   * One request of a protocol spoken on top of the API (tus resumable uploads): the answer itself
   * (status < 400, body unread), or a RelayRefusedError; a lost connection is a plain CliError.
   */
  request(
    method: string,
    path: string,
    headers: Record<string, string>,
    writeBody?: (req: http.ClientRequest) => void,
  ): Promise<IncomingMessage> {
    return this.send(method, path, {}, headers, writeBody);
  }

  /** Streams a response body to `<dest>.part`, then renames it into place. */
  async download(
    path: string,
    chooseDestination: (suggestedName: string | null) => string,
    onStart?: (totalBytes: number | null) => void,
    onProgress?: (bytes: number) => void,
  ): Promise<{ path: string; bytes: number }> {
    const res = await this.send('GET', path, {}, {});
    const dest = chooseDestination(filenameFrom(res.headers['content-disposition']));
    const length = Number(res.headers['content-length']);
    onStart?.(Number.isFinite(length) ? length : null);
    const partial = `${dest}.part`;
    let bytes = 0;
    res.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      onProgress?.(chunk.length);
    });
    try {
      await pipeline(res, createWriteStream(partial));
      renameSync(partial, dest);
    } catch (err) {
      rmSync(partial, { force: true });
      throw new CliError(`Download interrupted: ${err.message}`);
    }
    return { path: dest, bytes };
  }

  private send(
    method: string,
    path: string,
    query: Query,
    headers: Record<string, string>,
    writeBody?: (req: http.ClientRequest) => void,
  ): Promise<IncomingMessage> {
    const url = new URL(`${this.connection.baseUrl}/api/v1${path}`);
    for (const [key, value] of Object.entries(query)) {
      if (value !== undefined && value !== '') url.searchParams.set(key, String(value));
    }
    const transport = url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const req = transport.request(url, {
        method,
        headers: { ...headers, Authorization: `Bearer ${this.connection.token}`, 'User-Agent': this.connection.userAgent ?? 'svc-cli' },
        ...(this.connection.loopbackTls ? { rejectUnauthorized: false } : {}),
      });
      let answered = false;
      req.on('response', (res) => {
        answered = true;
        if ((res.statusCode ?? 500) < 400) {
          // The API never answers with HTML: this is the dashboard, reached through a path in the URL.
          if (!String(res.headers['content-type'] ?? '').startsWith('text/html')) return resolve(res);
          req.destroy();
          return reject(new CliError(notTheApiMessage(url, this.connection)));
        }
        // The relay may refuse before the whole upload was sent (401, 413, 404): stop sending, read why.
        readError(res).then(
          (err) => {
            req.destroy();
            const { source } = this.connection;
            reject(err.status === 401 && source ? err.withHint(unauthorizedHint({ ...this.connection, source })) : err);
          },
          reject,
        );
      });
      req.on('error', (err: NodeJS.ErrnoException) => {
        if (answered) return; // EPIPE/ECONNRESET after the relay already answered
        reject(new RelayUnreachableError(`Cannot reach the relay at ${this.connection.baseUrl}: ${err.code ?? err.message}`));
      });
      if (writeBody) writeBody(req);
      else req.end();
    });
  }
}

async function readBody(res: IncomingMessage, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res) {
    size += chunk.length;
    if (size <= limit) chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export async function readJson(res: IncomingMessage): Promise<unknown> {
  const text = await readBody(res, 16 * 1024 * 1024);
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    throw new CliError(`The relay answered ${res.statusCode} with a body that is not JSON`);
  }
}

async function readError(res: IncomingMessage): Promise<RelayRefusedError> {
  const status = res.statusCode ?? 500;
  let message = `HTTP ${status} ${res.statusMessage ?? ''}`.trim();
  try {
    const body = JSON.parse(await readBody(res, ERROR_BODY_LIMIT));
    if (body && typeof body.error === 'string') message = body.error;
  } catch {
    // not a relay error body (a proxy's HTML page, say): keep the status line
  }
  return new RelayRefusedError(status, message);
}

/** The file name a Content-Disposition header suggests, reduced to a safe base name. */
export function filenameFrom(header: string | undefined): string | null {
  if (!header) return null;
  const extended = /filename\*\s*=\s*(?:UTF-8|utf-8)''([^;]+)/.exec(header);
  const plain = /filename\s*=\s*"?([^";]+)"?/.exec(header);
  let name: string | undefined;
  try {
    name = extended ? decodeURIComponent(extended[1].trim()) : plain?.[1].trim();
  } catch {
    name = plain?.[1].trim();
  }
  const base = name?.split(/[\\/]/).pop()?.replace(/^\.+/, '');
  return base || null;
}

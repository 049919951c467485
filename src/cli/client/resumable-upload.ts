import { createReadStream } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { CliError, RelayRefusedError, RelayUnreachableError } from '../../relay-client/client-errors';
import { readJson, RelayClient } from '../../relay-client/relay-client';
import { ResumeState } from './resume-state';

/** The relay's tus collection for builds, under /api/v1 (docs/builds.md "Resumable uploads"). */
const COLLECTION = '/uploads/builds';
/** Consecutive failures without progress before giving up; each waits longer (then 30 s apart). */
const RETRY_DELAYS_MS = [500, 1_000, 2_000, 5_000, 10_000, 30_000, 30_000, 30_000];
/** Answers worth retrying: the relay or a proxy in front of it was briefly unavailable or busy. */
const TRANSIENT_STATUSES = new Set([408, 423, 429, 500, 502, 503, 504]);

export interface ResumableFile {
  path: string;
  /** The name the relay sees (its extension decides the build type). */
  name: string;
  size: number;
}

/**
 * Uploads a file with tus 1.0 and returns the relay's answer to the completing PATCH (the build
 * summary). A dropped connection or a transient answer is retried after a pause: HEAD asks how many
 * bytes the relay kept and the next PATCH continues from there, so a cut at 60 % resends only the
 * missing 40 %. A refusal (400, 401, 403, 404, 413, 507) ends the upload with the relay's message.
 */
export async function uploadResumable<T>(
  client: RelayClient,
  file: ResumableFile,
  fields: Record<string, string | undefined>,
  onProgress?: (bytes: number) => void,
  resume?: { state: ResumeState; key: string },
): Promise<T> {
  const tus = new TusSession(client, file, onProgress);
  if (!resume) return tus.run<T>(fields, null);
  try {
    const result = await tus.run<T>(fields, {
      saved: resume.state.get(resume.key),
      remember: (location) => resume.state.set(resume.key, location),
    });
    resume.state.delete(resume.key);
    return result;
  } catch (err) {
    // A refusal ends this upload for good; a connection that stayed down can be resumed by running again.
    if (!(err instanceof RelayUnreachableError)) resume.state.delete(resume.key);
    throw err;
  }
}

interface Resumption {
  /** The upload a previous run left unfinished, if any. */
  saved: string | null;
  remember(location: string): void;
}

class TusSession {
  /** Highest offset already reported to onProgress (a resume may restart below what was sent). */
  private reported = 0;

  constructor(
    private readonly client: RelayClient,
    private readonly file: ResumableFile,
    private readonly onProgress?: (bytes: number) => void,
  ) {}

  async run<T>(fields: Record<string, string | undefined>, resumption: Resumption | null): Promise<T> {
    let location = resumption?.saved ?? null;
    let offset = location ? await this.retrying(() => this.offsetOf(location!)).catch(() => null) : null;
    if (location === null || offset === null) {
      location = await this.retrying(() => this.create(fields));
      resumption?.remember(location);
      offset = 0;
    }
    // What a previous run sent counts as done: the progress starts where the upload resumes.
    this.onProgress?.(offset);
    this.reported = offset;
    let failures = 0;
    for (;;) {
      try {
        const res = await this.patch(location, offset);
        if (res.statusCode === 201) return (await readJson(res)) as T;
        res.resume();
        const next = Number(res.headers['upload-offset']);
        if (!Number.isFinite(next) || next <= offset || next > this.file.size) {
          throw new CliError(`The relay answered ${res.statusCode} without the build (Upload-Offset ${res.headers['upload-offset']})`);
        }
        offset = next;
        failures = 0;
      } catch (err) {
        if (!isTransient(err) || failures >= RETRY_DELAYS_MS.length) throw err;
        await sleep(RETRY_DELAYS_MS[failures++]);
        const kept = await this.retrying(() => this.offsetOf(location!));
        if (kept > offset) failures = 0;
        offset = kept;
      }
    }
  }

  private async create(fields: Record<string, string | undefined>): Promise<string> {
    const metadata = Object.entries({ ...fields, filename: this.file.name })
      .filter((entry): entry is [string, string] => entry[1] !== undefined)
      .map(([key, value]) => `${key} ${Buffer.from(value, 'utf8').toString('base64')}`)
      .join(',');
    const res = await this.client.request('POST', COLLECTION, {
      'Tus-Resumable': '1.0.0',
      'Upload-Length': String(this.file.size),
      'Upload-Metadata': metadata,
    });
    res.resume();
    const location = res.headers.location;
    if (res.statusCode !== 201 || !location) throw new CliError(`The relay answered ${res.statusCode} to the upload's creation, without its Location`);
    // The Location is the upload's path from the relay's root (/api/v1/uploads/builds/<id>).
    return new URL(location, 'http://relay').pathname.replace(/^.*?\/api\/v1(?=\/)/, '');
  }

  private async offsetOf(location: string): Promise<number> {
    let res: IncomingMessage;
    try {
      res = await this.client.request('HEAD', location, { 'Tus-Resumable': '1.0.0' });
    } catch (err) {
      if (err instanceof RelayRefusedError && (err.status === 404 || err.status === 410)) {
        throw new CliError(
          'The relay no longer holds this upload: it expired, or it was filed as a build just before the connection dropped (see `svc builds list`)',
        );
      }
      throw err;
    }
    res.resume();
    const offset = Number(res.headers['upload-offset']);
    if (!Number.isFinite(offset)) throw new CliError('The relay did not say how much of the upload it holds (no Upload-Offset)');
    return offset;
  }

  /** Sends the file from `offset` to its end in one request, streamed from disk. */
  private patch(location: string, offset: number): Promise<IncomingMessage> {
    const headers = {
      'Tus-Resumable': '1.0.0',
      'Upload-Offset': String(offset),
      'Content-Type': 'application/offset+octet-stream',
      'Content-Length': String(this.file.size - offset),
      Accept: 'application/json',
    };
    return this.client.request('PATCH', location, headers, (req) => {
      if (offset === this.file.size) return req.end();
      const stream = createReadStream(this.file.path, { start: offset });
      let position = offset;
      stream.on('data', (chunk: string | Buffer) => {
        position += chunk.length;
        if (position > this.reported) {
          this.onProgress?.(position - Math.max(this.reported, position - chunk.length));
          this.reported = position;
        }
      });
      stream.on('error', (err) => req.destroy(err));
      req.on('close', () => stream.destroy());
      stream.pipe(req);
    });
  }

  /** Runs a small request again after transient failures (HEAD, POST). */
  private async retrying<T>(work: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await work();
      } catch (err) {
        if (!isTransient(err) || attempt >= RETRY_DELAYS_MS.length) throw err;
        await sleep(RETRY_DELAYS_MS[attempt]);
      }
    }
  }
}

/** A lost connection, a transient status, or an offset conflict (HEAD tells the right one). */
function isTransient(err: unknown): boolean {
  if (err instanceof RelayRefusedError) return TRANSIENT_STATUSES.has(err.status) || err.status === 409;
  return err instanceof RelayUnreachableError;
}

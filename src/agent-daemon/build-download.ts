import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { filenameFrom } from '../relay-client/relay-client';
import { BackendError, DownloadedBuild } from './backends/device-backend';

const ERROR_BODY_LIMIT = 4096;

/**
 * Where install_build's `url` points, resolved against the agent's relay: a relative path
 * (`/api/v1/builds/42/download`) or an absolute URL on the relay's own origin. Any other origin is
 * refused, since the agent's PAT goes with the request.
 */
export function buildDownloadUrl(relayUrl: string, url: unknown): URL {
  const relay = new URL(relayUrl.replace(/^ws/i, 'http'));
  if (typeof url !== 'string' || !url) throw new BackendError('failed', 'install_build needs the build’s download url');
  let target: URL;
  try {
    target = new URL(url, relay);
  } catch {
    throw new BackendError('failed', `Not a URL: ${url}`);
  }
  if (target.origin !== relay.origin) {
    throw new BackendError('failed', `The build must come from this agent's relay (${relay.origin}), not ${target.origin}`);
  }
  return target;
}

/**
 * Downloads a build with the agent's PAT into a fresh temp folder, hashing it on the way. The
 * caller removes the folder with `discard` whatever happens next.
 */
export async function downloadBuild(url: URL, token: string): Promise<{ build: DownloadedBuild; discard: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-agent-build-'));
  const discard = () => rm(dir, { recursive: true, force: true });
  try {
    const res = await get(url, token);
    const fileName = filenameFrom(res.headers['content-disposition']) ?? 'build';
    const path = join(dir, fileName);
    const hash = createHash('sha256');
    let bytes = 0;
    const count = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        bytes += chunk.length;
        hash.update(chunk);
        done(null, chunk);
      },
    });
    await pipeline(res, count, createWriteStream(path));
    return { build: { path, fileName, bytes, sha256: hash.digest('hex') }, discard };
  } catch (err) {
    await discard();
    if (err instanceof BackendError) throw err;
    throw new BackendError('failed', `Downloading the build failed: ${(err as Error).message}`);
  }
}

function get(url: URL, token: string): Promise<http.IncomingMessage> {
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = transport.get(url, { headers: { Authorization: `Bearer ${token}`, 'User-Agent': 'svc-agent' } }, (res) => {
      if ((res.statusCode ?? 500) < 300) return resolve(res);
      let body = '';
      res.on('data', (chunk: Buffer) => {
        if (body.length < ERROR_BODY_LIMIT) body += chunk.toString('utf8');
      });
      res.on('end', () => {
        let message = `HTTP ${res.statusCode}`;
        try {
          message = (JSON.parse(body) as { error?: string }).error ?? message;
        } catch {
          // not a relay error body
        }
        reject(new BackendError('failed', `The relay refused the download: ${message}`));
      });
    });
    req.on('error', reject);
  });
}

/**
 * Resumable (tus) uploads and the 64 MB free-disk reserve (docs/robustness.md "Disk space"), on a
 * real small disk: the relay's data folder sits on a 100 MiB tmpfs mounted for the suite, so free
 * space is what the test makes it. A PATCH is held to the reserve as its bytes arrive (a chunked
 * body declares no length), the declared remainder of every open upload is counted before more is
 * promised, and readiness says storage is down while the reserve is eaten into.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmdirSync, rmSync, statfsSync, statSync, writeFileSync } from 'node:fs';
import { ClientRequest, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { DISK_RESERVE_BYTES } from '../../src/common/multipart/multipart-receiver';
import { send } from '../robustness/support/http';
import { describeUnless } from '../support/describe-unless';
import { MemberFactory } from '../support/factory';
import { startTestRelay, TestRelay } from '../support/test-relay';

const MiB = 1024 * 1024;
const DISK_BYTES = 100 * MiB;
const COLLECTION = '/api/v1/uploads/builds';
const NO_SPACE = { error: 'Not enough disk space on the relay to store this upload' };
const b64 = (value: string) => Buffer.from(value, 'utf8').toString('base64');

/** Mounts a tmpfs of `bytes` at a new temp folder; null (and the reason) when this machine won't. */
function mountSmallDisk(bytes: number): { path: string } | { reason: string } {
  const path = mkdtempSync(join(tmpdir(), 'svc-small-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes}`, 'tmpfs', path], { stdio: 'pipe' });
    return { path };
  } catch (err) {
    rmdirSync(path);
    return { reason: `mounting a ${bytes}-byte tmpfs as the data disk failed (needs root): ${String(err).split('\n')[0]}` };
  }
}

/** Resolves when a request's socket can take more, or is gone. */
function drainedOrClosed(req: ClientRequest): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      req.off('drain', done).off('close', done);
      resolve();
    };
    req.on('drain', done).on('close', done);
  });
}

const disk = mountSmallDisk(DISK_BYTES);

describeUnless('reason' in disk ? disk.reason : null, 'resumable uploads on a nearly full data disk (tmpfs)', () => {
  const mount = (disk as { path: string }).path;
  const dataDir = join(mount, 'data');
  let relay: TestRelay;
  let auth: Record<string, string>;
  const fillers: string[] = [];

  beforeAll(async () => {
    relay = await startTestRelay({ SVC_DATA_DIR: dataDir, SVC_MAX_BUILD_BYTES: String(DISK_BYTES) });
    const members = new MemberFactory(relay);
    auth = { authorization: `Bearer ${await members.pat(await members.member('Developer'), 'view,builds:write')}`, 'tus-resumable': '1.0.0' };
  });
  afterAll(async () => {
    await relay?.close();
    execFileSync('umount', [mount]);
    rmdirSync(mount);
  });
  afterEach(() => {
    for (const filler of fillers.splice(0)) rmSync(filler, { force: true });
  });

  const free = () => {
    const stats = statfsSync(dataDir);
    return stats.bavail * stats.bsize;
  };
  /** Another writer on the same disk: takes `bytes` of it (rounded down to whole pages). */
  const fill = (bytes: number) => {
    const path = join(dataDir, `filler-${fillers.length}`);
    writeFileSync(path, Buffer.alloc(Math.max(0, Math.floor(bytes / 4096) * 4096)));
    fillers.push(path);
  };
  const tusFile = (location: string) => join(dataDir, 'tmp', 'tus', basename(location));

  async function create(length: number): Promise<{ status: number; location: string; text: string }> {
    const res = await send(relay.url, {
      method: 'POST',
      path: COLLECTION,
      headers: { ...auth, 'upload-length': String(length), 'upload-metadata': `filename ${b64('big.apk')}` },
    });
    return { status: res.status, location: String(res.headers.location ?? ''), text: res.text };
  }
  const remove = (location: string) => send(relay.url, { method: 'DELETE', path: location, headers: auth });
  const offsetOf = async (location: string) => Number((await send(relay.url, { method: 'HEAD', path: location, headers: auth })).headers['upload-offset']);

  /**
   * A PATCH whose body goes out chunked (no Content-Length), written as the test says: the relay
   * knows nothing of its size in advance.
   */
  function chunkedPatch(location: string, offset: number) {
    const req = httpRequest({
      host: '127.0.0.1',
      port: relay.port,
      method: 'PATCH',
      path: location,
      headers: { ...auth, 'upload-offset': String(offset), 'content-type': 'application/offset+octet-stream' },
      agent: false,
    });
    let answered = false;
    const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
      req.on('response', (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
      });
      // The relay may answer and close while bytes are still going out. Node then closes the socket
      // with bytes unread, the kernel resets it, and on a loaded machine the reset can discard the
      // answer before this client reads it: that is reported as { status: 0 } (callers then judge by
      // what the disk holds); any other unanswered error fails the test.
      req.on('error', (err: NodeJS.ErrnoException) =>
        answered ? undefined : setTimeout(() => answered || (err.code === 'ECONNRESET' || err.code === 'EPIPE' ? resolve({ status: 0, text: 'reset' }) : reject(err)), 500),
      );
    });
    return {
      response,
      /** Sends `bytes` zeros in 64 KiB chunks, waiting for the socket to drain; stops once answered. */
      async write(bytes: number): Promise<void> {
        const chunk = Buffer.alloc(64 * 1024);
        for (let sent = 0; sent < bytes && !answered && !req.destroyed; sent += chunk.length) {
          if (!req.write(chunk)) await drainedOrClosed(req);
        }
      },
      end: () => req.end(),
    };
  }

  async function sizeReaches(path: string, bytes: number): Promise<void> {
    for (let i = 0; i < 200; i++) {
      if (statSync(path).size >= bytes) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`${path} never reached ${bytes} bytes`);
  }

  it("creation counts what the open uploads still declare: each fits alone, not together (507)", async () => {
    const room = free() - DISK_RESERVE_BYTES;
    expect(room).toBeGreaterThan(30 * MiB);
    const first = await create(Math.floor(room * 0.6));
    expect(first.status).toBe(201);
    const second = await create(Math.floor(room * 0.6)); // fits beside the reserve, not beside the first
    expect([second.status, second.text]).toEqual([507, JSON.stringify(NO_SPACE)]);
    const small = await create(Math.floor(room * 0.2));
    expect(small.status).toBe(201);
    expect((await remove(small.location)).status).toBe(204);
    expect((await remove(first.location)).status).toBe(204);
  });

  it('a PATCH whose declared remainder no longer fits beside the reserve is refused before a byte is written', async () => {
    const created = await create(20 * MiB);
    expect(created.status).toBe(201);
    fill(free() - DISK_RESERVE_BYTES - 10 * MiB); // another writer: 10 MiB left above the reserve, 20 MiB declared
    const patch = chunkedPatch(created.location, 0);
    void patch.write(MiB).then(patch.end);
    const res = await patch.response;
    expect([res.status, res.text]).toEqual([507, JSON.stringify(NO_SPACE)]);
    expect(statSync(tusFile(created.location)).size).toBe(0);
    expect(await offsetOf(created.location)).toBe(0);
    expect((await remove(created.location)).status).toBe(204);
  });

  it('a chunked PATCH that would cross the reserve while its bytes arrive gets 507; the upload holds only what HEAD acknowledges', async () => {
    const created = await create(20 * MiB);
    expect(created.status).toBe(201);
    const file = tusFile(created.location);
    const patch = chunkedPatch(created.location, 0);
    await patch.write(4 * MiB);
    await sizeReaches(file, 4 * MiB);
    fill(free() - DISK_RESERVE_BYTES - 2 * MiB); // another writer, mid-upload: 2 MiB left above the reserve
    await patch.write(12 * MiB); // 16 MiB in all, short of the 20 declared: without the check, a 204
    patch.end();
    const res = await patch.response;
    // 507 with its message, or the reset that can replace it (above); without the guard this is a 204.
    if (res.status !== 0) expect([res.status, res.text]).toEqual([507, JSON.stringify(NO_SPACE)]);

    const held = statSync(file).size;
    expect(await offsetOf(created.location)).toBe(held); // nothing on disk past the offset a client resumes from
    expect(held).toBeGreaterThanOrEqual(4 * MiB);
    // what arrived after the disk filled stopped within the guard's 1 MiB re-check of free space
    expect(held).toBeLessThanOrEqual(4 * MiB + 2 * MiB + MiB);
    expect(free()).toBeGreaterThan(DISK_RESERVE_BYTES - MiB);
    expect((await remove(created.location)).status).toBe(204);
  });

  it('readiness says storage is down while free space is below the reserve, and up again after', async () => {
    expect((await relay.http().get('/api/v1/health').expect(200)).body.dependencies.storage).toBe('ok');
    fill(free() - DISK_RESERVE_BYTES + MiB);
    const down = await relay.http().get('/api/v1/health');
    expect([down.status, down.body]).toEqual([503, { error: 'Storage unavailable' }]);
    await relay.http().get('/api/v1/health/live').expect(200);
    for (const filler of fillers.splice(0)) rmSync(filler);
    expect((await relay.http().get('/api/v1/health').expect(200)).body.dependencies.storage).toBe('ok');
  });
});

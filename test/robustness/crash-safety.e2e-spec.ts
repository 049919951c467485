/**
 * Crash safety (security.md §6.3 #82): the relay runs as a child process and is killed with
 * SIGKILL mid-upload and with files left as a crash between a delete's steps leaves them. On the
 * next start on the same data dir, the start-up sweep removes partial temp files and orphan files
 * of every kind, no half-written row exists, and the relay serves.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixture } from '../support/build-fixtures';
import { images } from '../support/images';
import { ChildRelay, startChildRelay } from './support/child-relay';
import { eventually, filesUnder, multipartBody, send, sendJson } from './support/http';

jest.setTimeout(480_000);

describe('crash safety: kill -9 and restart on the same data dir', () => {
  let dataDir: string;
  let relay: ChildRelay | null = null;

  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'svc-crash-'));
  });
  afterAll(async () => {
    await relay?.kill();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const json = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => sendJson(relay!.url, method, path, body, headers);

  const uploadBuild = (pat: string, name: string, bytes: Buffer) => {
    const boundary = 'crashboundary';
    return send(relay!.url, {
      method: 'POST',
      path: '/api/v1/builds',
      headers: { authorization: `Bearer ${pat}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: multipartBody(boundary, [{ name: 'file', value: bytes, filename: name }]),
    });
  };

  /** The first Admin (/auth/init), signed in, and a PAT to upload with. */
  const firstAdmin = async (): Promise<{ cookie: string; pat: string }> => {
    expect((await json('POST', '/auth/init', { email: 'admin@example.com', password: 'correct horse battery' })).status).toBe(201);
    const login = await send(relay!.url, {
      method: 'POST',
      path: '/api/v1/auth/login',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'admin@example.com', password: 'correct horse battery' }),
    });
    const cookie = String(login.headers['set-cookie']).split(';')[0];
    const pat = (await json('POST', '/tokens', { name: 'ci', scope: 'view,builds:write' }, { cookie })).body.token;
    return { cookie, pat };
  };

  it('a partial upload killed mid-stream leaves no temp file and no row after restart; orphans of every kind are swept', async () => {
    relay = await startChildRelay(dataDir, { SVC_MAX_BUILD_BYTES: String(200 * 1024 * 1024) });
    const { cookie, pat } = await firstAdmin();
    expect((await uploadBuild(pat, 'a.apk', readFileSync(fixture('string-label.apk')))).status).toBe(201);

    // A body that ends inside a file part must be a 400, not an unhandled stream error that kills the process.
    const truncated = await send(relay.url, {
      method: 'POST',
      path: '/api/v1/builds',
      headers: { authorization: `Bearer ${pat}`, 'content-type': 'multipart/form-data; boundary=zz' },
      body: multipartBody('zz', [{ name: 'file', value: Buffer.alloc(1000, 7), filename: 'x.apk' }], false),
    });
    expect(truncated.status).toBe(400);
    expect((await json('GET', '/auth/status')).status).toBe(200);

    // Start a 50 MB upload, and kill the relay once part of it is on disk.
    const boundary = 'bigboundary';
    const upload = request({
      host: '127.0.0.1',
      port: new URL(relay.url).port,
      method: 'POST',
      path: '/api/v1/builds',
      headers: {
        authorization: `Bearer ${pat}`,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(50 * 1024 * 1024),
      },
    });
    upload.on('error', () => undefined); // the server dies under it
    upload.write(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.apk"\r\n\r\n`);
    upload.write(readFileSync(fixture('string-label.apk')));
    for (let i = 0; i < 4; i++) upload.write(Buffer.alloc(1024 * 1024, i));
    const tmp = join(dataDir, 'tmp');
    const partialOnDisk = () => filesUnder(tmp).some((f) => f.endsWith('.part') && statSync(join(tmp, f)).size > 1024 * 1024);
    expect(await eventually(partialOnDisk, 15_000)).toBe(true);
    expect(await relay.kill('SIGKILL')).toBe('SIGKILL');
    upload.destroy();
    expect(filesUnder(tmp).length).toBeGreaterThan(0); // the crash left the partial file behind

    // Files as a crash between a delete's (or purge's) steps leaves them: the rows are gone, the files not.
    const old = new Date(Date.now() - 2 * 60 * 60 * 1000);
    const plant = (relative: string, bytes: Buffer) => {
      writeFileSync(join(dataDir, relative), bytes);
      utimesSync(join(dataDir, relative), old, old);
    };
    plant('builds/0123456789abcdef0123456789abcdef.apk', readFileSync(fixture('string-label.apk')));
    plant('uploads/comments/0123456789abcdef0123456789abcdef.png', images.png());
    plant('uploads/avatars/0123456789abcdef0123456789abcdef.png', images.png());
    plant('uploads/logos/0123456789abcdef0123456789abcdef.png', images.png());
    plant('recordings/rec-0123456789abcdef0123456789abcdef.webm', Buffer.alloc(64, 1));
    plant('tmp/upload-0123456789abcdef01234567.part', Buffer.alloc(64, 1)); // a recording's or image's partial upload
    const kept = filesUnder(join(dataDir, 'builds')).filter((f) => !f.startsWith('0123456789abcdef'));
    expect(kept).toHaveLength(1);

    relay = await startChildRelay(dataDir, { SVC_MAX_BUILD_BYTES: String(200 * 1024 * 1024) });
    expect(filesUnder(tmp)).toEqual([]);
    // The builds folder is swept in the background once the relay listens (a million files must not hold the start).
    const buildsLeft = () => filesUnder(join(dataDir, 'builds')).join() === kept.join();
    expect(await eventually(buildsLeft, 10_000)).toBe(true);
    expect(filesUnder(join(dataDir, 'uploads'))).toEqual([]);
    expect(filesUnder(join(dataDir, 'recordings'))).toEqual([]);
    const list = await json('GET', '/builds', undefined, { authorization: `Bearer ${pat}` });
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(1);
    expect((await json('GET', '/auth/status')).body).toEqual({ initialized: true, canInitialize: false });
    // And it serves writes again: a new upload lands and is listed.
    expect((await uploadBuild(pat, 'b.apk', readFileSync(fixture('literal-label.apk')))).status).toBe(201);
    expect((await json('GET', '/builds', undefined, { authorization: `Bearer ${pat}` })).body.total).toBe(2);
  });

  it("an acknowledged comment's image and build survive kill -9 right after the answer (issue 27: their file calls are quick calls from the event loop)", async () => {
    await relay?.kill();
    const dir = mkdtempSync(join(tmpdir(), 'svc-crash-ack-'));
    // ts-node compiles the relay at each start: on a loaded machine that can take past the default minute.
    const startTimeoutMs = 150_000;
    try {
      relay = await startChildRelay(dir, {}, startTimeoutMs);
      const { cookie, pat } = await firstAdmin();
      const apk = readFileSync(fixture('literal-label.apk'));
      const uploaded = await uploadBuild(pat, 'a.apk', apk);
      expect(uploaded.status).toBe(201);
      const buildId = JSON.parse(uploaded.text).id as number;
      const screenshot = images.png(3000);
      const commented = await send(relay.url, {
        method: 'POST',
        path: '/api/v1/comments',
        headers: { authorization: `Bearer ${pat}`, 'content-type': 'multipart/form-data; boundary=ackboundary' },
        body: multipartBody('ackboundary', [
          { name: 'build_id', value: String(buildId) },
          { name: 'body', value: 'see screenshot' },
          { name: 'attachment', value: screenshot, filename: 's.png' },
        ]),
      });
      expect(commented.status).toBe(201);
      expect(await relay.kill('SIGKILL')).toBe('SIGKILL');

      relay = await startChildRelay(dir, {}, startTimeoutMs);
      const comments = await json('GET', `/comments?build_id=${buildId}`, undefined, { cookie });
      expect(comments.status).toBe(200);
      const filePath: string = comments.body[0].attachments[0].file_path;
      const served = await send(relay.url, { method: 'GET', path: filePath, headers: { cookie } });
      expect(served.status).toBe(200);
      expect(readFileSync(join(dir, filePath.replace(/^\//, '')))).toEqual(screenshot);
      const download = await send(relay.url, { method: 'GET', path: `/api/v1/builds/${buildId}/download`, headers: { authorization: `Bearer ${pat}` } });
      expect(download.status).toBe(200);
      expect(Number(download.headers['content-length'])).toBe(apk.length);
    } finally {
      await relay?.kill();
      relay = null;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

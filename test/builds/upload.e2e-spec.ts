import { request as httpRequest } from 'node:http';
import { readFileSync } from 'node:fs';
import { AppsService } from '../../src/apps/apps.service';
import { REQUEST_IDLE_TIMEOUT_MS } from '../../src/bootstrap/http-timeouts';
import { MemberFactory, TestMember } from '../support/factory';
import { attachBuild, EXPECTED, fixture, tempFiles, buildFiles } from '../support/build-fixtures';
import { rawBody } from '../support/raw-body';
import { startTestRelay, TestRelay } from '../support/test-relay';
import { uploadedBuild } from './uploaded-build';

const MAX_BYTES = 300_000;

describe('POST /builds: upload and metadata', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  let dev: TestMember;
  let pat: string;

  beforeAll(async () => {
    relay = await startTestRelay({ SVC_MAX_BUILD_BYTES: String(MAX_BYTES) });
    members = new MemberFactory(relay);
    dev = await members.member('Developer');
    pat = await members.pat(dev, 'builds:write');
  });
  afterAll(() => relay.close());

  const upload = (name: string, fields: Record<string, string> = {}, filename = name) =>
    attachBuild(members.withPat(pat, 'post', '/api/v1/builds'), name, fields, filename);

  const buildCount = async () => (await members.as(dev, 'get', '/api/v1/builds').expect(200)).body.total as number;

  it.each(Object.keys(EXPECTED))('reads the real metadata of %s', async (name) => {
    const res = await upload(name).expect(201);
    const expected = EXPECTED[name];
    expect(res.body).toEqual(uploadedBuild(expected));
    const stored = await members.as(dev, 'get', `/api/v1/builds/${res.body.id}`).expect(200);
    expect(stored.body).toMatchObject({ ...expected, version_label: null, completed_at: null, delete_after: null });
    expect(tempFiles(relay)).toEqual([]);
  });

  it('matches what aapt dump badging printed for the APKs', () => {
    const badging = readFileSync(fixture('string-label.apk.badging.txt'), 'utf8');
    expect(badging).toContain("package: name='com.example.stringlabel' versionCode='7' versionName='2.0.0-beta'");
    expect(badging).toContain("application-label:'Résumé Viewer'");
    expect(EXPECTED['string-label.apk'].name).toBe('Résumé Viewer');
  });

  it('files builds under one app per bundle id, created from the first build', async () => {
    const first = await upload('literal-label.apk').expect(201);
    const second = await upload('literal-label.apk', { status: 'Done', label: 'feature/x' }).expect(201);
    expect(second.body.app_id).toBe(first.body.app_id);
    expect(second.body.status_label).toBe('Done');
    const build = await members.as(dev, 'get', `/api/v1/builds/${second.body.id}`).expect(200);
    expect(build.body.version_label).toBe('feature/x');
    expect(build.body.completed_at).toBe(build.body.uploaded_at);
    const apps = (await members.as(dev, 'get', '/api/v1/apps').expect(200)).body.items;
    const app = apps.find((a: { id: number }) => a.id === first.body.app_id);
    expect(app).toMatchObject({ name: 'Literal Demo', bundle_id_key: 'com.example.literal', platform: 'android' });
  });

  it('attaches to an explicit app_id, and refuses an unknown one or a platform mismatch', async () => {
    const app = await relay.app.get(AppsService).create({ name: 'Shared', bundleIdKey: 'x.shared', platform: 'both' });
    const res = await upload('xml-root.app.zip', { app_id: String(app.id) }).expect(201);
    expect(res.body.app_id).toBe(app.id);
    const before = await buildCount();
    expect((await upload('xml-root.app.zip', { app_id: '999999' }).expect(404)).body).toEqual({ error: 'App not found' });
    const iosOnly = await relay.app.get(AppsService).create({ name: 'iOS', bundleIdKey: 'x.ios', platform: 'ios' });
    const mismatch = await upload('literal-label.apk', { app_id: String(iosOnly.id) }).expect(400);
    expect(mismatch.body.error).toMatch(/ios app/);
    expect(await buildCount()).toBe(before);
    expect(tempFiles(relay)).toEqual([]);
  });

  it.each([
    ['status', 'Approved', 'status must be one of Backlog, In Progress, Done, Rejected'],
    ['platform', 'windows', 'platform must be ios or android'],
    ['platform', 'ios', 'platform ios does not match the uploaded file (an Android APK)'],
    ['app_id', 'abc', 'app_id must be a positive integer'],
    ['app_id', '-3', 'app_id must be a positive integer'],
  ])('refuses %s=%s', async (field, value, message) => {
    const res = await upload('literal-label.apk', { [field]: value }).expect(400);
    expect(res.body).toEqual({ error: message });
  });

  it.each([
    ['app.ipa', /\.ipa files are device builds.*upload a simulator build \(\.app\.zip, \.tar\.gz or \.tgz\)/],
    ['app.aab', /\.aab \(Android App Bundle\).*upload an APK/],
    ['renamed-text.apk', /content does not match its name: a \.apk must be a zip archive/],
    ['renamed-text.tar.gz', /a \.tar\.gz must be a gzip-compressed tar archive/],
    ['empty.apk', /content does not match its name/],
    ['no-manifest.apk', /^The APK contains no AndroidManifest\.xml$/],
    ['plain-manifest.apk', /AndroidManifest\.xml is plain text/],
    ['no-bundle.app.zip', /contains no app bundle/],
    ['traversal-only.app.zip', /contains no app bundle/],
    ['symlink-plist.app.zip', /contains no app bundle/],
    ['symlink-plist.tar.gz', /contains no app bundle/],
    ['hardlink-plist.tgz', /contains no app bundle/],
    ['missing-id.app.zip', /^Info\.plist has no CFBundleIdentifier$/],
    ['doctype.app.zip', /XML entities/],
    ['bomb.app.zip', /Info\.plist is larger than 1048576 bytes/],
    ['bomb.tar.gz', /decompression bomb/],
    ['truncated.app.zip', /not a readable zip archive/],
  ])('refuses %s with a 400 that says why, leaving nothing behind', async (name, message) => {
    const before = await buildCount();
    // Not timed: the message names the check that stopped the read (a bomb's names its limit, so it
    // was not inflated in full), and a 400 is the refusal's own answer, not the request deadline's 408.
    const res = await upload(name).expect(400);
    expect(res.body.error).toMatch(message);
    expect(await buildCount()).toBe(before);
    expect(tempFiles(relay)).toEqual([]);
  });

  it('stores the bytes sent when every delimiter reaches the relay cut at any offset', async () => {
    // The parser's boundary search holds back a read's tail that could begin a
    // delimiter: here each delimiter arrives split across two reads, at every offset in turn.
    const boundary = 'cut-boundary';
    const apk = readFileSync(fixture('literal-label.apk'));
    const body = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="label"\r\n\r\n-${boundary}--${boundary.slice(0, 5)}`),
      Buffer.from(`\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="cut.apk"\r\n\r\n`),
      apk,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const delimiter = Buffer.from(`\r\n--${boundary}`);
    const starts = [body.indexOf(delimiter), body.lastIndexOf(delimiter)];
    for (let cut = 1; cut <= delimiter.length; cut++) {
      const res = await sendInPieces(body, [...starts.map((start) => start + cut), body.length], boundary);
      expect(res.status).toBe(201);
      const { id } = JSON.parse(res.body);
      const build = await members.as(dev, 'get', `/api/v1/builds/${id}`).expect(200);
      expect(build.body.version_label).toBe(`-${boundary}--${boundary.slice(0, 5)}`);
      const dl = await members.withPat(pat, 'get', `/api/v1/builds/${id}/download`).buffer(true).parse(rawBody).expect(200);
      expect(Buffer.compare(dl.body as Buffer, apk)).toBe(0);
    }
    expect(tempFiles(relay)).toEqual([]);
  });

  it('answers 400 when the header block of a file part is ended by the closing delimiter (busboy alone never answers)', async () => {
    const body = Buffer.from('--x\r\nContent-Disposition: form-data; name="file"; filename="a.apk"\r\n\r\n--x\r\n--');
    const res = await sendInPieces(body, [body.length], 'x');
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toEqual({ error: 'Malformed multipart/form-data body' });
    await waitFor(() => tempFiles(relay).length === 0);
  });

  /** POSTs `body` in pieces ending at `ends`, each written after the last has left (so reads split there). */
  function sendInPieces(body: Buffer, ends: number[], boundary: string): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const req = httpRequest(`${relay.url}/api/v1/builds`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${pat}`, 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'Content-Length': String(body.length) },
      });
      req.on('error', reject);
      req.on('response', (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d: string) => (text += d)).on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      });
      let from = 0;
      const next = (index: number) => {
        if (index === ends.length) return req.end();
        const piece = body.subarray(from, ends[index]);
        from = ends[index];
        req.write(piece, () => setTimeout(() => next(index + 1), 5));
      };
      req.flushHeaders();
      next(0);
    });
  }

  it('refuses an unsupported extension and a missing file', async () => {
    const res = await upload('xml-root.app.zip', {}, 'build.zip').expect(400);
    expect(res.body.error).toMatch(/^Unsupported file type/);
    const none = await members.withPat(pat, 'post', '/api/v1/builds').field('status', 'Done').expect(400);
    expect(none.body).toEqual({ error: 'file required' });
    const json = await members.withPat(pat, 'post', '/api/v1/builds').send({}).expect(400);
    expect(json.body.error).toMatch(/multipart/);
  });

  it('stores hostile client file names under a generated name', async () => {
    const res = await upload('literal-label.apk', {}, '../../evil"\r\nX-Evil: 1.apk').expect(201);
    const files = (await buildFiles(relay));
    expect(files.every((f) => /^[0-9a-f]{32}\.(apk|app\.zip|tar\.gz|tgz)$/.test(f))).toBe(true);
    const dl = await members.withPat(pat, 'get', `/api/v1/builds/${res.body.id}/download`).expect(200);
    expect(dl.headers['x-evil']).toBeUndefined();
    expect(dl.headers['content-disposition']).toMatch(/^attachment; filename=/);
  });

  it('refuses a build over SVC_MAX_BUILD_BYTES with 413 naming the limit, leaving nothing behind', async () => {
    const before = await buildCount();
    const big = Buffer.concat([readFileSync(fixture('literal-label.apk')), Buffer.alloc(MAX_BYTES)]);
    const res = await members.withPat(pat, 'post', '/api/v1/builds').attach('file', big, 'big.apk');
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ error: `Build file too large (limit ${MAX_BYTES} bytes)` });
    expect(await buildCount()).toBe(before);
    expect(tempFiles(relay)).toEqual([]);
  });

  it('refuses a declared Content-Length far over the limit before reading the body', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${relay.url}/api/v1/builds`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${pat}`,
          'Content-Type': 'multipart/form-data; boundary=x',
          'Content-Length': String(50 * MAX_BYTES),
        },
      });
      req.on('response', (res) => resolve(res.statusCode ?? 0));
      req.on('error', reject);
      req.write('--x\r\n'); // the body is never sent: the answer must not wait for it
    });
    expect(status).toBe(413);
    expect(tempFiles(relay)).toEqual([]);
  });

  it('leaves no temp file, row or app when the client aborts mid-upload', async () => {
    const before = await buildCount();
    const appsBefore = (await members.as(dev, 'get', '/api/v1/apps').expect(200)).body.items.length;
    for (let i = 0; i < 5; i++) {
      await new Promise<void>((resolve) => {
        const req = httpRequest(`${relay.url}/api/v1/builds`, {
          method: 'POST',
          headers: {
            Authorization: `Bearer ${pat}`,
            'Content-Type': 'multipart/form-data; boundary=x',
            'Content-Length': String(200_000),
          },
        });
        req.on('error', () => resolve());
        req.write('--x\r\nContent-Disposition: form-data; name="file"; filename="a.apk"\r\n\r\n');
        req.write(Buffer.alloc(100_000, 1), () => setTimeout(() => req.destroy(), 50));
        req.on('close', () => resolve());
      });
    }
    await waitFor(() => tempFiles(relay).length === 0);
    expect(await buildCount()).toBe(before);
    expect((await members.as(dev, 'get', '/api/v1/apps').expect(200)).body.items.length).toBe(appsBefore);
  });

  it('does not cut long uploads by total time, only by silence and slow headers', () => {
    const server = relay.app.getHttpServer();
    expect(server.requestTimeout).toBe(0);
    expect(server.headersTimeout).toBe(relay.config.limits.headersTimeoutMs);
    expect(REQUEST_IDLE_TIMEOUT_MS).toBeLessThan(300_000);
  });

  it('keeps serving after every hostile upload', async () => {
    await relay.http().get('/api/v1/auth/status').expect(200);
  });
});

async function waitFor(check: () => boolean, timeoutMs = 2000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

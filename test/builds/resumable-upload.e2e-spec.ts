import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as tus from 'tus-js-client';
import { ScheduledPurgesService } from '../../src/maintenance/scheduled-purges.service';
import { simulatorBuild } from '../cli/build-fixtures';
import { emptyDir, REPO_ROOT, runCli, spawnCli } from '../cli/cli-process';
import { compiledCliMain } from '../cli/compiled-cli';
import { EXPECTED, fixture } from '../support/build-fixtures';
import { startCuttingProxy } from '../support/cutting-proxy';
import type { TestMember } from '../support/factory';
import { useTestRelay } from '../support/use-relay';

const MAX_BUILD_BYTES = 32 * 1024 * 1024;
const COLLECTION = '/api/v1/uploads/builds';
const HOUR_MS = 3_600_000;

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const b64 = (value: string) => Buffer.from(value, 'utf8').toString('base64');
const metadataHeader = (fields: Record<string, string>) =>
  Object.entries(fields)
    .map(([key, value]) => `${key} ${b64(value)}`)
    .join(',');

interface TusResult {
  status: number;
  body: string;
}

/** Uploads `data` with the reference tus client (tus-js-client), as a browser or script would. */
function tusUpload(endpoint: string, token: string, data: Buffer, metadata: Record<string, string>, retryDelays: number[] = []): Promise<TusResult> {
  return new Promise((resolve, reject) => {
    const upload = new tus.Upload(data, {
      endpoint,
      metadata,
      headers: { Authorization: `Bearer ${token}` },
      retryDelays,
      storeFingerprintForResuming: false,
      onSuccess: ({ lastResponse }) => resolve({ status: lastResponse.getStatus(), body: lastResponse.getBody() }),
      onError: reject,
    });
    upload.start();
  });
}

/**
 * tus 1.0 resumable uploads at /api/v1/uploads/builds (docs/builds.md "Resumable uploads"), driven
 * by the reference client tus-js-client and by `svc upload`: the same auth, limits, field rules and
 * intake as POST /builds, resumption after a dropped connection, and the 24 h expiry sweep.
 */
describe('resumable build uploads (tus)', () => {
  const ctx = useTestRelay({ SVC_MAX_BUILD_BYTES: String(MAX_BUILD_BYTES) });
  let developer: TestMember;
  let token: string;

  beforeAll(async () => {
    developer = await ctx.members.member('Developer');
    token = await ctx.members.pat(developer);
  });

  const tusDir = () => join(ctx.relay.dataDir, 'tmp', 'tus');
  const tusFiles = () => (existsSync(tusDir()) ? readdirSync(tusDir()) : []);
  const endpoint = () => `${ctx.relay.url}${COLLECTION}`;

  async function downloaded(buildId: number): Promise<Buffer> {
    const res = await ctx.members
      .withPat(token, 'get', `/api/v1/builds/${buildId}/download`)
      .buffer(true)
      .parse((r, done) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => done(null, Buffer.concat(chunks)));
      })
      .expect(200);
    return res.body as Buffer;
  }

  const headAs = (auth: string, location: string) =>
    ctx.relay.http().head(location).set('Authorization', `Bearer ${auth}`);

  /** Creates an upload by hand; returns its path (the Location). */
  async function create(length: number, fields: Record<string, string>, auth = token): Promise<string> {
    const res = await ctx.members
      .withPat(auth, 'post', COLLECTION)
      .set('Tus-Resumable', '1.0.0')
      .set('Upload-Length', String(length))
      .set('Upload-Metadata', metadataHeader(fields))
      .expect(201);
    expect(res.headers.location).toMatch(new RegExp(`^${COLLECTION}/\\d+-[0-9a-f]{32}$`));
    return res.headers.location;
  }

  it('tus-js-client uploads a build: the completing PATCH answers 201 with the POST /builds summary', async () => {
    const data = readFileSync(fixture('string-label.apk'));
    const result = await tusUpload(endpoint(), token, data, { filename: 'string-label.apk', status: 'Backlog', label: 'feature/tus' });
    expect(result.status).toBe(201);
    const summary = JSON.parse(result.body);
    const expected = EXPECTED['string-label.apk'];
    expect(summary).toEqual(
      expect.objectContaining({
        id: expect.any(Number),
        app_id: expect.any(Number),
        name: expected.name,
        version_name: expected.version_name,
        build_number: expected.build_number,
        bundle_id: expected.bundle_id,
        platform: 'android',
        status_label: 'Backlog',
      }),
    );
    const build = await ctx.members.withPat(token, 'get', `/api/v1/builds/${summary.id}`).expect(200);
    expect(build.body).toEqual(expect.objectContaining({ version_label: 'feature/tus', status_label: 'Backlog' }));
    expect(sha256(await downloaded(summary.id))).toBe(sha256(data));
    expect(tusFiles()).toEqual([]);
  });

  it('a finished upload leaves no timer holding the process (tus throttles a progress event the relay does not use)', async () => {
    const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    const before = timers();
    const result = await tusUpload(endpoint(), token, readFileSync(fixture('string-label.apk')), { filename: 'string-label.apk' });
    expect(result.status).toBe(201);
    // tus's default throttle keeps its trailing timer for a second after the last PATCH
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(timers()).toBeLessThanOrEqual(before);
  });

  it('a connection cut halfway resumes from the offset the relay kept: byte-identical build', async () => {
    const build = await simulatorBuild({ name: 'Resumed', bundleId: 'com.example.resumed', paddingBytes: 6 * 1024 * 1024 });
    const data = readFileSync(build.path);
    const proxy = await startCuttingProxy(ctx.relay.port, Math.floor(data.length * 0.6));
    try {
      const result = await tusUpload(`${proxy.url}${COLLECTION}`, token, data, { filename: 'Resumed.tar.gz' }, [0, 200, 500, 1000]);
      expect(proxy.cut()).toBe(true);
      const offsets = proxy.patchOffsets();
      expect(offsets[0]).toBe(0);
      // Resumed from the middle, not from the start.
      expect(offsets.slice(1).some((offset) => offset > 0 && offset < data.length)).toBe(true);
      expect(result.status).toBe(201);
      const summary = JSON.parse(result.body);
      expect(summary).toEqual(expect.objectContaining({ bundle_id: 'com.example.resumed', platform: 'ios' }));
      expect(sha256(await downloaded(summary.id))).toBe(sha256(data));
    } finally {
      await proxy.close();
    }
  });

  it('svc upload above its threshold uses tus and resumes by itself after a dropped connection', async () => {
    const build = await simulatorBuild({ name: 'CliResumed', bundleId: 'com.example.cliresumed', paddingBytes: 6 * 1024 * 1024 });
    const data = readFileSync(build.path);
    const proxy = await startCuttingProxy(ctx.relay.port, Math.floor(data.length * 0.6));
    try {
      const result = await runCli(['upload', build.path, '--label', 'cli/tus', '--resumable-above', '1048576', '--json'], {
        env: { SVC_URL: proxy.url, SVC_TOKEN: token },
        cwd: emptyDir(),
      });
      expectProgressOnly(result.stderr, 'CliResumed');
      expect(result.code).toBe(0);
      expect(proxy.cut()).toBe(true);
      const offsets = proxy.patchOffsets();
      expect(offsets[0]).toBe(0);
      expect(offsets.slice(1).some((offset) => offset > 0 && offset < data.length)).toBe(true);
      const summary = JSON.parse(result.stdout);
      expect(summary).toEqual(expect.objectContaining({ bundle_id: 'com.example.cliresumed', platform: 'ios', name: 'CliResumed' }));
      expect(sha256(await downloaded(summary.id))).toBe(sha256(data));
      const stored = await ctx.members.withPat(token, 'get', `/api/v1/builds/${summary.id}`).expect(200);
      expect(stored.body.version_label).toBe('cli/tus');
    } finally {
      await proxy.close();
    }
  }, 120_000); // the first CLI run of a source state compiles it (test/cli/compiled-cli.ts)

  it('svc upload killed mid-upload: running the same command again continues the upload it left', async () => {
    const build = await simulatorBuild({ name: 'Rerun', bundleId: 'com.example.rerun', paddingBytes: 6 * 1024 * 1024 });
    const data = readFileSync(build.path);
    const proxy = await startCuttingProxy(ctx.relay.port, Math.floor(data.length * 0.6));
    const env = { SVC_URL: proxy.url, SVC_TOKEN: token, XDG_STATE_HOME: emptyDir('svc-state-') };
    const args = ['upload', build.path, '--resumable-above', '1048576', '--json'];
    try {
      compiledCliMain(REPO_ROOT); // compile first, so the kill below meets a running upload
      const first = spawnCli(args, { env, cwd: emptyDir() });
      proxy.onCut = () => first.kill('SIGKILL'); // killed before it could retry by itself
      const exit = await new Promise<string | null>((resolve) => first.on('close', (_code, signal) => resolve(signal)));
      expect(exit).toBe('SIGKILL');
      expect(proxy.creations()).toBe(1);

      const second = await runCli(args, { env, cwd: emptyDir() });
      expectProgressOnly(second.stderr, 'Rerun');
      expect(second.code).toBe(0);
      expect(proxy.creations()).toBe(1); // no new upload: the saved one was continued
      const offsets = proxy.patchOffsets();
      expect(offsets[0]).toBe(0);
      expect(offsets[1]).toBeGreaterThan(0);
      expect(offsets[1]).toBeLessThan(data.length);
      // The progress resumes with the upload: its first line shows the bytes the first run sent.
      const resumedAt = Math.floor((offsets[1] / data.length) * 100);
      if (resumedAt >= 10) expect(Number(/ (\d+)%/.exec(second.stderr)?.[1])).toBe(resumedAt);
      const summary = JSON.parse(second.stdout);
      expect(sha256(await downloaded(summary.id))).toBe(sha256(data));
    } finally {
      await proxy.close();
    }
  }, 120_000);

  describe('refusals are { "error" } with the status POST /builds would give', () => {
    const expectError = (res: { status: number; body: unknown; headers: Record<string, string> }, status: number, error: string | RegExp) => {
      expect(res.status).toBe(status);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body).toEqual({ error: typeof error === 'string' ? error : expect.stringMatching(error) });
    };
    const post = (length: number, metadata: string | null, auth: string | null = token) => {
      const req = ctx.relay.http().post(COLLECTION).set('Tus-Resumable', '1.0.0').set('Upload-Length', String(length));
      if (metadata !== null) req.set('Upload-Metadata', metadata);
      if (auth) req.set('Authorization', `Bearer ${auth}`);
      return req;
    };

    it('413 at creation past SVC_MAX_BUILD_BYTES (exactly the limit is accepted)', async () => {
      const meta = metadataHeader({ filename: 'big.apk' });
      expectError(await post(MAX_BUILD_BYTES + 1, meta), 413, `Build file too large (limit ${MAX_BUILD_BYTES} bytes)`);
      const exact = await post(MAX_BUILD_BYTES, meta).expect(201);
      await ctx.members.withPat(token, 'delete', exact.headers.location).set('Tus-Resumable', '1.0.0').expect(204);
    });

    it('400 at creation for metadata the POST /builds fields would refuse, or without a file name', async () => {
      expectError(await post(100, metadataHeader({ filename: 'a.apk', status: 'Approved' })), 400, 'status must be one of Backlog, In Progress, Done, Rejected');
      expectError(await post(100, metadataHeader({ filename: 'a.apk', platform: 'windows' })), 400, 'platform must be ios or android');
      expectError(await post(100, metadataHeader({ filename: 'a.apk', app_id: 'x' })), 400, 'app_id must be a positive integer');
      expectError(await post(100, metadataHeader({ filename: 'a.apk', label: 'x'.repeat(201) })), 400, 'label must be at most 200 characters');
      expectError(await post(100, metadataHeader({ status: 'Backlog' })), 400, 'Upload-Metadata must name the file (filename)');
      expectError(await post(100, null), 400, 'Upload-Metadata must name the file (filename)');
      expectError(await post(100, 'filename !!!not-base64'), 400, 'Invalid upload-metadata header');
      expectError(await post(100, metadataHeader({ filename: 'a.apk' })).unset('Tus-Resumable'), 412, 'Tus-Resumable header required (1.0.0)');
      expect(tusFiles()).toEqual([]);
    });

    it('auth as POST /builds: none → 401, a view-only PAT → 403, a Viewer → 403', async () => {
      const meta = metadataHeader({ filename: 'a.apk' });
      expectError(await post(100, meta, null), 401, 'Unauthorized');
      const viewPat = await ctx.members.pat(developer, 'view');
      expectError(await post(100, meta, viewPat), 403, 'Insufficient scope');
      const viewer = await ctx.members.member('Viewer');
      expectError(await post(100, meta, await ctx.members.pat(viewer)), 403, /Viewers|Forbidden/);
    });

    it('an upload is its creator\'s: another member gets 404 on HEAD, PATCH and DELETE', async () => {
      const location = await create(10, { filename: 'a.apk' });
      const other = await ctx.members.pat(await ctx.members.member('Developer'));
      const head = await headAs(other, location).set('Tus-Resumable', '1.0.0');
      expect(head.status).toBe(404);
      const patch = await ctx.members
        .withPat(other, 'patch', location)
        .set('Tus-Resumable', '1.0.0')
        .set('Upload-Offset', '0')
        .set('Content-Type', 'application/offset+octet-stream')
        .send(Buffer.alloc(10));
      expectError(patch, 404, 'Upload not found');
      expectError(await ctx.members.withPat(other, 'delete', location).set('Tus-Resumable', '1.0.0'), 404, 'Upload not found');
      // The creator still can: DELETE terminates it and removes its bytes.
      await ctx.members.withPat(token, 'delete', location).set('Tus-Resumable', '1.0.0').expect(204);
      expect(tusFiles()).toEqual([]);
    });

    it('a completed file the intake refuses: 400 on the completing PATCH, nothing kept', async () => {
      const data = Buffer.from('this is not an APK at all');
      const location = await create(data.length, { filename: 'fake.apk' });
      const res = await ctx.members
        .withPat(token, 'patch', location)
        .set('Tus-Resumable', '1.0.0')
        .set('Upload-Offset', '0')
        .set('Content-Type', 'application/offset+octet-stream')
        .send(data);
      expectError(res, 400, /./);
      expect(tusFiles()).toEqual([]);
      const multipart = await ctx.members.withPat(token, 'post', '/api/v1/builds').attach('file', data, 'fake.apk');
      expect(res.body).toEqual(multipart.body);
    });

    it('a wrong offset is 409', async () => {
      const location = await create(10, { filename: 'a.apk' });
      const res = await ctx.members
        .withPat(token, 'patch', location)
        .set('Tus-Resumable', '1.0.0')
        .set('Upload-Offset', '5')
        .set('Content-Type', 'application/offset+octet-stream')
        .send(Buffer.alloc(5));
      expectError(res, 409, 'Upload-Offset conflict');
      await ctx.members.withPat(token, 'delete', location).set('Tus-Resumable', '1.0.0').expect(204);
    });
  });

  describe("tus's own refusals keep tus's status, with an { error } saying what it means", () => {
    const patch = (location: string, offset: number | null) => {
      const req = ctx.members.withPat(token, 'patch', location).set('Tus-Resumable', '1.0.0');
      return offset === null ? req : req.set('Upload-Offset', String(offset));
    };
    const expectError = async (res: Promise<{ status: number; body: unknown; headers: Record<string, string> }>, status: number, error: string) => {
      const answer = await res;
      expect([answer.status, answer.headers['content-type'], answer.body]).toEqual([status, expect.stringMatching(/^application\/json/), { error }]);
    };
    const octets = 'application/offset+octet-stream';
    let location: string;
    beforeAll(async () => {
      location = await create(10, { filename: 'a.apk' });
    });
    afterAll(() => ctx.members.withPat(token, 'delete', location).set('Tus-Resumable', '1.0.0'));

    it('501 for Upload-Length on a PATCH (deferred lengths are not offered), not "Internal server error"', async () => {
      await expectError(
        patch(location, 0).set('Upload-Length', '10').set('Content-Type', octets).send(Buffer.alloc(5)),
        501,
        'Upload-Length is declared once, when the upload is created: deferred lengths (creation-defer-length) are not supported',
      );
      const deferred = ctx.members.withPat(token, 'post', COLLECTION).set('Tus-Resumable', '1.0.0').set('Upload-Defer-Length', '1');
      await expectError(
        deferred.set('Upload-Metadata', metadataHeader({ filename: 'a.apk' })),
        501,
        'Upload-Length is declared once, when the upload is created: deferred lengths (creation-defer-length) are not supported',
      );
      const concat = ctx.members.withPat(token, 'post', COLLECTION).set('Tus-Resumable', '1.0.0').set('Upload-Concat', 'partial').set('Upload-Length', '10');
      await expectError(concat, 501, 'Upload-Concat is not supported (no concatenation extension): send the file as one upload');
    });

    it('400, 403, 410 and 413 name the header or the state at fault', async () => {
      await expectError(
        ctx.members.withPat(token, 'post', COLLECTION).set('Tus-Resumable', '1.0.0').set('Upload-Metadata', metadataHeader({ filename: 'a.apk' })),
        400,
        'Upload-Length header required',
      );
      await expectError(patch(location, null).set('Content-Type', octets).send(Buffer.alloc(5)), 403, 'Upload-Offset header required');
      await expectError(patch(location, 0).send(), 403, 'Content-Type header required (application/offset+octet-stream)');
      await expectError(patch(location, 0).set('Content-Type', octets).send(Buffer.alloc(11)), 413, 'The bytes sent go past the Upload-Length declared at creation');
      // created two days ago, as far as its info file says: past its 24 h
      const info = join(tusDir(), `${location.split('/').pop()}.json`);
      const upload = JSON.parse(readFileSync(info, 'utf8'));
      writeFileSync(info, JSON.stringify({ ...upload, creation_date: new Date(Date.now() - 48 * HOUR_MS).toISOString() }));
      await expectError(patch(location, 0).set('Content-Type', octets).send(Buffer.alloc(5)), 410, 'Upload no longer exists (expired 24 h after its creation, or removed)');
    });
  });

  it('OPTIONS (public) advertises tus 1.0, the extensions and the size limit', async () => {
    const res = await ctx.relay.http().options(COLLECTION).expect(204);
    expect(res.headers['tus-version']).toBe('1.0.0');
    expect(res.headers['tus-extension']).toBe('creation,termination,expiration');
    expect(res.headers['tus-max-size']).toBe(String(MAX_BUILD_BYTES));
  });

  it('partial uploads expire 24 h after creation and the maintenance sweep removes them', async () => {
    const location = await create(1000, { filename: 'slow.apk' });
    const first = await ctx.members
      .withPat(token, 'patch', location)
      .set('Tus-Resumable', '1.0.0')
      .set('Upload-Offset', '0')
      .set('Content-Type', 'application/offset+octet-stream')
      .send(Buffer.alloc(400));
    expect(first.status).toBe(204);
    expect(first.headers['upload-offset']).toBe('400');
    expect(Date.parse(first.headers['upload-expires'])).toBeGreaterThan(Date.now() + 23 * HOUR_MS);
    // A file left by a crash between the two writes of a creation, also long past 24 h by the relay's clock.
    writeFileSync(join(tusDir(), '1-orphan'), 'x');
    const purges = ctx.relay.app.get(ScheduledPurgesService);
    await purges.runAll();
    const head = await headAs(token, location).set('Tus-Resumable', '1.0.0').expect(200);
    expect(head.headers['upload-offset']).toBe('400');

    ctx.relay.clock.advance(24 * HOUR_MS + 60_000);
    await purges.runAll();
    expect(tusFiles()).toEqual([]);
    expect((await headAs(token, location).set('Tus-Resumable', '1.0.0')).status).toBe(404);
  });
});

/** stderr of an upload of a few MB without a terminal: its progress lines (docs/cli.md), the last at 100 %, nothing else. */
function expectProgressOnly(stderr: string, name: string): void {
  expect(stderr).toMatch(new RegExp(`^(Uploading ${name}\\.tar\\.gz: +\\d+% \\(.*\\)\\n)+$`));
  expect(stderr).toMatch(/ 100% \(.*\)\n$/);
}

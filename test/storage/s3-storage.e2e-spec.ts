import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { HOUR_MS } from '../../src/common/time';
import { ScheduledPurgesService } from '../../src/maintenance/scheduled-purges.service';
import { BuildRetentionService } from '../../src/builds/build-retention.service';
import { simulatorBuild } from '../cli/build-fixtures';
import { emptyDir, runCli } from '../cli/cli-process';
import { attachBuild } from '../support/build-fixtures';
import { MemberFactory, TestMember } from '../support/factory';
import { images } from '../support/images';
import { rawBody } from '../support/raw-body';
import { startTestS3Server, TestS3Server } from '../support/s3-server';
import { describeSqliteOnly, startTestRelay, TestRelay } from '../support/test-relay';

const WEBM = readFileSync(join(__dirname, '..', 'fixtures', 'recordings', 'two-seconds.webm'));
const MB = 1024 * 1024;

/**
 * The object-storage backend against a real S3-protocol server on loopback: what lands in the
 * bucket (and nothing in the data folder), Range from S3, no object and no pending multipart upload
 * after a refused, aborted or failed upload, purges and sweeps, health, backup and restore.
 * (SVC_TEST_STORAGE=s3 runs the other suites on S3 as well.)
 */
describe('stored files in S3-compatible object storage', () => {
  let s3: TestS3Server;
  let relay: TestRelay;
  let members: MemberFactory;
  let dev: TestMember;
  let pat: string;

  beforeAll(async () => {
    s3 = await startTestS3Server();
    relay = await startTestRelay({ ...s3.env('team/relay'), SVC_MAX_RECORDING_BYTES: String(64 * MB) });
    members = new MemberFactory(relay);
    dev = await members.member('Developer');
    pat = await members.pat(dev);
  });
  afterAll(async () => {
    await relay.close();
    await s3.close();
  });

  const objects = async (folder: string) => (await s3.objectKeys()).filter((k) => k.startsWith(`team/relay/${folder}`));
  const localFiles = (folder: string) => (existsSync(join(relay.dataDir, folder)) ? readdirSync(join(relay.dataDir, folder)) : []);
  const tmpFiles = () => readdirSync(join(relay.dataDir, 'tmp'));

  it('stores an uploaded build as an object under the prefix (multipart), downloads it whole and by Range', async () => {
    const build = await simulatorBuild({ bundleId: 'com.example.s3', paddingBytes: 20 * MB });
    const bytes = readFileSync(build.path);
    expect(bytes.length).toBeGreaterThan(16 * MB); // three 8 MiB parts
    const res = await members.withPat(pat, 'post', '/api/v1/builds').attach('file', build.path).expect(201);
    expect(await objects('builds/')).toEqual([expect.stringMatching(/^team\/relay\/builds\/[0-9a-f]{32}\.tar\.gz$/)]);
    expect(localFiles('builds')).toEqual([]);
    expect(tmpFiles()).toEqual([]);
    expect(await s3.pendingUploads()).toEqual([]);

    const whole = await members.withPat(pat, 'get', `/api/v1/builds/${res.body.id}/download`).buffer(true).parse(rawBody).expect(200);
    expect(whole.headers['content-length']).toBe(String(bytes.length));
    expect(whole.headers['accept-ranges']).toBe('bytes');
    expect(whole.headers['content-disposition']).toContain('SampleApp.tar.gz');
    expect(sha256(whole.body)).toBe(sha256(bytes));

    const start = 8 * MB - 10;
    const part = await members
      .withPat(pat, 'get', `/api/v1/builds/${res.body.id}/download`)
      .set('Range', `bytes=${start}-${start + 99}`)
      .buffer(true)
      .parse(rawBody)
      .expect(206);
    expect(part.headers['content-range']).toBe(`bytes ${start}-${start + 99}/${bytes.length}`);
    expect(Buffer.compare(part.body, bytes.subarray(start, start + 100))).toBe(0);

    const suffix = await members.withPat(pat, 'get', `/api/v1/builds/${res.body.id}/download`).set('Range', 'bytes=-5').buffer(true).parse(rawBody).expect(206);
    expect(Buffer.compare(suffix.body, bytes.subarray(bytes.length - 5))).toBe(0);

    const beyond = await members.withPat(pat, 'get', `/api/v1/builds/${res.body.id}/download`).set('Range', `bytes=${bytes.length + 10}-`).expect(416);
    expect(beyond.body).toEqual({ error: 'Range not satisfiable' });
    expect(beyond.headers['content-range']).toBe(`bytes */${bytes.length}`);
  }, 60_000);

  it('a refused upload reaches neither the bucket nor the data folder', async () => {
    const before = await s3.objectKeys();
    await attachBuild(members.withPat(pat, 'post', '/api/v1/builds'), 'truncated.app.zip').expect(400);
    await attachBuild(members.withPat(pat, 'post', '/api/v1/builds'), 'string-label.apk', { platform: 'ios' }).expect(400);
    expect(await s3.objectKeys()).toEqual(before);
    expect(await s3.pendingUploads()).toEqual([]);
    expect(tmpFiles()).toEqual([]);
  });

  it('a client that aborts mid-upload leaves no object and no pending multipart upload', async () => {
    const before = await s3.objectKeys();
    await new Promise<void>((resolve) => {
      const req = httpRequest(`${relay.url}/api/v1/builds`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${pat}`, 'Content-Type': 'multipart/form-data; boundary=x', 'Content-Length': String(30 * MB) },
      });
      req.on('error', () => resolve());
      req.on('close', () => resolve());
      req.write('--x\r\nContent-Disposition: form-data; name="file"; filename="a.tar.gz"\r\n\r\n');
      req.write(Buffer.alloc(10 * MB, 1), () => setTimeout(() => req.destroy(), 50));
    });
    await waitFor(async () => tmpFiles().length === 0);
    expect(await s3.objectKeys()).toEqual(before);
    expect(await s3.pendingUploads()).toEqual([]);
  });

  it('an upload the S3 server fails mid-way is aborted: 500, no object, no pending multipart upload', async () => {
    const before = await s3.objectKeys();
    const big = Buffer.concat([WEBM, Buffer.alloc(20 * MB)]);
    s3.failUploadPart(2);
    try {
      const res = await members.as(dev, 'post', '/api/v1/recordings/upload').attach('video', big, 'big.webm').expect(500);
      expect(res.body).toEqual({ error: expect.any(String) });
    } finally {
      s3.failUploadPart(null);
    }
    expect(await s3.objectKeys()).toEqual(before);
    expect(await s3.pendingUploads()).toEqual([]);
    expect(tmpFiles()).toEqual([]);
    // The same upload goes through once S3 answers again.
    await members.as(dev, 'post', '/api/v1/recordings/upload').attach('video', big, 'big.webm').expect(200);
    expect(await objects('recordings/')).toHaveLength(1);
  }, 60_000);

  it('serves images and recordings from the bucket (recordings with Range)', async () => {
    const png = images.png(500);
    await members.as(dev, 'patch', '/api/v1/profile').attach('avatar', png, 'me.png').expect(200);
    const avatarUrl: string = (await members.as(dev, 'get', '/api/v1/auth/me').expect(200)).body.avatarUrl;
    expect(await objects('uploads/avatars/')).toEqual([`team/relay${avatarUrl}`]);
    const served = await members.as(dev, 'get', avatarUrl).buffer(true).parse(rawBody).expect(200);
    expect(served.headers['content-type']).toBe('image/png');
    expect(Buffer.compare(served.body, png)).toBe(0);

    const url: string = (await members.as(dev, 'post', '/api/v1/recordings/upload').attach('video', WEBM, 'r.webm').expect(200)).body.url;
    const head = await members.as(dev, 'get', url).set('Range', 'bytes=0-3').buffer(true).parse(rawBody).expect(206);
    expect(head.headers['content-type']).toBe('video/webm');
    expect(Buffer.compare(head.body, WEBM.subarray(0, 4))).toBe(0);
  });

  it('purges remove objects; the orphan sweep removes old unreferenced objects only', async () => {
    const build = await attachBuild(members.withPat(pat, 'post', '/api/v1/builds'), 'string-label.apk').expect(201);
    const admin = await members.admin();
    const key = (await objects('builds/')).find((k) => k.endsWith('.apk'))!;
    await members.as(admin, 'delete', `/api/v1/apps/${build.body.app_id}`).expect(200);
    expect(await s3.objectKeys()).not.toContain(key);

    // Orphans as a crash would leave them: an old one is swept, a young one kept (its row may be coming).
    const orphanOld = `builds/${'a'.repeat(32)}.apk`;
    const orphanYoung = `builds/${'b'.repeat(32)}.apk`;
    await putObject(relay, orphanOld);
    await putObject(relay, orphanYoung);
    await s3.backdate(`team/relay/${orphanOld}`, 2 * HOUR_MS);
    const swept = await relay.app.get(BuildRetentionService).sweepOrphans(HOUR_MS);
    expect(swept.files).toBe(1);
    const left = await s3.objectKeys();
    expect(left).not.toContain(`team/relay/${orphanOld}`);
    expect(left).toContain(`team/relay/${orphanYoung}`);
    // Every referenced object survives a full sweep.
    await relay.app.get(ScheduledPurgesService).sweepOrphanUploads(HOUR_MS);
    expect(await objects('uploads/avatars/')).toHaveLength(1);
  });

  it('health reports the store: 503 "Storage unavailable" while S3 is down', async () => {
    await relay.http().get('/api/v1/health').expect(200);
    const down = await startTestS3Server('other-bucket');
    const blind = await startTestRelay({ ...down.env(), SVC_STORAGE_URL: 's3://missing-bucket' });
    try {
      const res = await blind.http().get('/api/v1/health').expect(503);
      expect(res.body).toEqual({ error: 'Storage unavailable' });
    } finally {
      await blind.close();
      await down.close();
    }
  });
});

describeSqliteOnly('svc backup copies the SQLite database')('svc backup / restore with S3 storage', () => {
  it('backs up the objects and restores them into another bucket prefix; the restored relay serves them', async () => {
    const s3 = await startTestS3Server();
    const relay = await startTestRelay(s3.env('source'));
    let copy: TestRelay | null = null;
    try {
      const members = new MemberFactory(relay);
      const dev = await members.member('Developer');
      const pat = await members.pat(dev);
      const uploaded = await attachBuild(members.withPat(pat, 'post', '/api/v1/builds'), 'string-label.apk').expect(201);
      const archive = join(emptyDir(), 'svc.tar');
      const backup = await runCli(['backup', archive, '--data-dir', relay.dataDir, '--json'], { env: s3.env('source') });
      expect(backup.stderr).toBe('');
      expect(backup.code).toBe(0);
      expect(JSON.parse(backup.stdout).files).toEqual([
        { path: expect.stringMatching(/^builds\/[0-9a-f]{32}\.apk$/), bytes: 1699, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
      ]);

      const freshDir = join(emptyDir(), 'restored');
      const restore = await runCli(['restore', archive, '--data-dir', freshDir], { env: s3.env('copy') });
      expect(restore.stderr).toBe('');
      expect(restore.code).toBe(0);
      expect((await s3.objectKeys()).filter((k) => k.startsWith('copy/'))).toHaveLength(1);
      expect(existsSync(join(freshDir, 'builds'))).toBe(false); // the files went to the bucket, not the data folder

      copy = await startTestRelay({ ...s3.env('copy'), SVC_DATA_DIR: freshDir });
      const file = await copy.http().get(`/api/v1/builds/${uploaded.body.id}/download`).set('Authorization', `Bearer ${pat}`).buffer(true).parse(rawBody).expect(200);
      expect(file.body.length).toBe(1699);
    } finally {
      await copy?.close();
      await relay.close();
      await s3.close();
    }
  }, 60_000);
});

/** Stores a small file directly through the relay's store (as a crash between steps leaves one). */
async function putObject(relay: TestRelay, key: string): Promise<void> {
  const { FileStore } = await import('../../src/storage/file-store');
  const { writeFileSync } = await import('node:fs');
  const path = join(relay.dataDir, 'tmp', 'planted');
  writeFileSync(path, 'orphan');
  await relay.app.get(FileStore).put(key, path);
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

async function waitFor(check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { attachBuild, fixture } from '../support/build-fixtures';
import { uploadTestBuild } from '../support/builds';
import { describeUnless } from '../support/describe-unless';
import { MemberFactory, TEST_PASSWORD } from '../support/factory';
import { images } from '../support/images';
import { rawBody } from '../support/raw-body';
import { PG_ADMIN_URL, unreachable, withPgAdmin } from '../support/reachable';
import { startTestS3Server, TestS3Server } from '../support/s3-server';
import { startTestRelay, TestRelay } from '../support/test-relay';
import { CLI_TEST_TIMEOUT_MS, emptyDir, runCli } from './cli-process';

jest.setTimeout(CLI_TEST_TIMEOUT_MS);

const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

/**
 * `svc migrate` end to end: a SQLite install with members, a PAT, an avatar and builds, stopped,
 * copied to a fresh PostgreSQL database and an S3 server; the source file is byte-for-byte the same
 * afterwards, and a relay started on the targets serves the same data (and continues the ids).
 */
describeUnless(unreachable([PG_ADMIN_URL]), 'svc migrate --to postgres://… --storage s3://…', () => {
  const database = `svc_migrate_${randomBytes(6).toString('hex')}`;
  const targetUrl = Object.assign(new URL(PG_ADMIN_URL), { pathname: `/${database}` }).toString();
  let s3: TestS3Server;
  let source: TestRelay;
  let migrated: TestRelay | undefined;
  const admin = (sql: string) => withPgAdmin((c) => c.query(sql));

  beforeAll(async () => {
    await admin(`CREATE DATABASE ${database}`);
    s3 = await startTestS3Server();
    // SQLite and the data folder whatever the suite's dialect and store: this is the install being moved.
    source = await startTestRelay({ SVC_DATABASE_URL: 'sqlite:svc.sqlite', SVC_STORAGE_URL: '' });
  });

  afterAll(async () => {
    await migrated?.close();
    await source?.discard();
    await s3?.close();
    await admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  });

  it('copies rows and files, verifies them, leaves the source untouched; a relay on the targets serves the same data', async () => {
    const members = new MemberFactory(source);
    const owner = await members.admin();
    const dev = await members.member('Developer');
    const pat = await members.pat(dev);
    await members.as(owner, 'patch', '/api/v1/profile').attach('avatar', images.png(300), 'owner.png').expect(200);
    const build = await uploadTestBuild(members, owner);
    await members.as(owner, 'patch', `/api/v1/builds/${build.id}`).send({ status_label: 'Done' }).expect(200);
    // A build with provenance: its branch's count (build_branch_counts) is the target's own, verified, not copied.
    const withBranch = (await attachBuild(members.as(owner, 'post', '/api/v1/builds'), 'string-label.apk', { branch: 'main' }).expect(201)).body.id as number;
    const avatarUrl: string = (await members.as(owner, 'get', '/api/v1/auth/me').expect(200)).body.avatarUrl;
    const listBefore = (await members.as(owner, 'get', '/api/v1/builds').expect(200)).body;
    const patList = (await members.withPat(pat, 'get', '/api/v1/builds').expect(200)).body;
    await source.app.close(); // the operator stops the relay first
    const sourceFile = `${source.dataDir}/svc.sqlite`;
    const before = sha256(sourceFile);

    const storage = s3.env('moved');
    const result = await runCli(
      ['migrate', '--data-dir', source.dataDir, '--to', targetUrl, '--storage', storage.SVC_STORAGE_URL, '--json'],
      { env: { ...storage, SVC_STORAGE_URL: undefined }, cwd: emptyDir(), timeoutMs: 90_000 },
    );
    expect({ code: result.code, stderr: result.stderr.replace(/.*NodeVersionSupportWarning[\s\S]*?trace-warnings[^\n]*\n/, '') }).toEqual({ code: 0, stderr: '' });
    const report = JSON.parse(result.stdout);
    const rows = Object.fromEntries(report.tables.map((t: { table: string; rows: number }) => [t.table, t.rows]));
    expect(rows).toMatchObject({ users: 2, builds: 2, personal_access_tokens: 1, build_counts: 2, build_provenance: 1, build_branch_counts: 1 });
    expect(report.files.map((f: { key: string }) => f.key).sort()).toEqual(
      (await s3.objectKeys()).map((k) => k.replace(/^moved\//, '')).sort(),
    );
    expect(report.files.length).toBeGreaterThanOrEqual(2); // the build and the avatar (and the build's icon, if any)
    expect(sha256(sourceFile)).toBe(before);

    // Cut over: a relay on PostgreSQL + S3 with an empty data folder of its own.
    process.env.AWS_ACCESS_KEY_ID = storage.AWS_ACCESS_KEY_ID;
    process.env.AWS_SECRET_ACCESS_KEY = storage.AWS_SECRET_ACCESS_KEY;
    migrated = await startTestRelay({ ...storage, SVC_DATABASE_URL: targetUrl });
    const login = await migrated.http().post('/api/v1/auth/login').send({ email: owner.email, password: TEST_PASSWORD }).expect(200);
    const cookie = login.headers['set-cookie'][0].split(';')[0];
    expect((await migrated.http().get('/api/v1/builds').set('Cookie', cookie).expect(200)).body).toEqual(listBefore);
    const download = await migrated.http().get(`/api/v1/builds/${build.id}/download`).set('Cookie', cookie).parse(rawBody).expect(200);
    expect(Buffer.compare(download.body as Buffer, readFileSync(fixture('string-label.apk')))).toBe(0);
    await migrated.http().get(avatarUrl).set('Cookie', cookie).expect(200);
    expect((await migrated.http().get('/api/v1/builds').set('Authorization', `Bearer ${pat}`).expect(200)).body).toEqual(patList);
    // Ids continue after the copied ones (the sequences were moved on).
    const again = await uploadTestBuild(new MemberFactory(migrated), { ...owner, cookie });
    expect(again.id).toBe(withBranch + 1);

    // A target that already holds an install is refused, untouched.
    const refused = await runCli(['migrate', '--data-dir', source.dataDir, '--to', targetUrl], { cwd: emptyDir() });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/already holds an install/);
  });

  it('refuses a target that is not PostgreSQL', async () => {
    const result = await runCli(['migrate', '--data-dir', source.dataDir, '--to', 'sqlite:other.sqlite'], { cwd: emptyDir() });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/--to must be a postgres:\/\/ URL/);
  });
});

import { chmodSync, existsSync, lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { sessionCookieFrom, TEST_PASSWORD } from '../support/factory';
import { fixture } from '../support/build-fixtures';
import { images } from '../support/images';
import { describeSqliteOnly } from '../support/test-relay';
import { emptyDir, runCli, RunningCli, spawnCli, CLI_TEST_TIMEOUT_MS } from './cli-process';

jest.setTimeout(CLI_TEST_TIMEOUT_MS);

const TIGHTENED = /Data folder was open to other local users/;

/**
 * Modes of everything `svc relay`, `svc backup` and `svc restore` write, under the common umask 022
 * (inherited by the children from this process): the data folder holds every hash and webhook
 * secret, so no other local user may read any of it.
 */
describeSqliteOnly('the data folder holds the SQLite database and its -wal/-shm files here')('file modes of the data folder and backups', () => {
  let previousUmask: number;
  const running: RunningCli[] = [];
  beforeAll(() => {
    previousUmask = process.umask(0o022);
  });
  afterAll(() => {
    process.umask(previousUmask);
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((r) => r.stop()));
  });

  async function startRelay(dataDir: string): Promise<{ relay: RunningCli; url: string }> {
    const relay = new RunningCli(
      spawnCli(['relay', '--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir], { env: { SVC_LOG_LEVEL: 'warn' } }),
    );
    running.push(relay);
    const [, url] = await relay.waitFor(/^svc relay listening on (http:\/\/127\.0\.0\.1:\d+)/);
    return { relay, url };
  }

  /** Writes something of every kind the relay stores: database rows, a build and its icon, an avatar, a tus upload in progress. */
  async function fillDataFolder(url: string): Promise<void> {
    await request(url).post('/api/v1/auth/init').send({ email: 'admin@example.com', password: TEST_PASSWORD }).expect(201);
    const login = await request(url).post('/api/v1/auth/login').send({ email: 'admin@example.com', password: TEST_PASSWORD }).expect(200);
    const cookie = sessionCookieFrom(login.headers['set-cookie']);
    const pat = (await request(url).post('/api/v1/tokens').set('Cookie', cookie).send({ name: 'ci' }).expect(201)).body.token;
    const build = await request(url).post('/api/v1/builds').set('Cookie', cookie).attach('file', fixture('icons/mipmap-icon.apk')).expect(201);
    await request(url).get(`/api/v1/builds/${build.body.id}/icon`).set('Cookie', cookie).expect(200);
    await request(url).patch('/api/v1/profile').set('Cookie', cookie).attach('avatar', images.png(300), 'me.png').expect(200);
    await request(url)
      .post('/api/v1/uploads/builds')
      .set('Authorization', `Bearer ${pat}`)
      .set('Tus-Resumable', '1.0.0')
      .set('Upload-Length', '1000')
      .set('Upload-Metadata', `filename ${Buffer.from('app.apk').toString('base64')}`)
      .expect(201);
  }

  it('svc relay creates the data folder 0700 and every file in it 0600; svc backup writes 0600, svc restore too', async () => {
    const dataDir = join(emptyDir(), 'data');
    const { url } = await startRelay(dataDir);
    await fillDataFolder(url);
    const kinds = entries(dataDir).map((e) => e.path);
    expect(kinds).toEqual(expect.arrayContaining(['svc.sqlite', 'svc.sqlite-wal', 'svc.sqlite-shm', 'tmp/tus']));
    expect(kinds.some((p) => p.startsWith('builds/'))).toBe(true);
    expect(kinds.some((p) => p.startsWith('uploads/avatars/'))).toBe(true);
    expect(tooOpen(dataDir)).toEqual([]);

    const archive = join(emptyDir(), 'svc.tar');
    const backup = await runCli(['backup', archive, '--data-dir', dataDir]);
    expect(backup.stderr).toBe('');
    expect(backup.code).toBe(0);
    expect(modeOf(archive)).toBe('600');

    const restoredDir = join(emptyDir(), 'restored');
    const restore = await runCli(['restore', archive, '--data-dir', restoredDir]);
    expect(restore.stderr).toBe('');
    expect(restore.code).toBe(0);
    expect(existsSync(join(restoredDir, 'svc.sqlite'))).toBe(true);
    expect(tooOpen(restoredDir)).toEqual([]);
  });

  it('an existing data folder open to others is tightened at start-up, and the change logged once', async () => {
    const dataDir = join(emptyDir(), 'data');
    const first = await startRelay(dataDir);
    await fillDataFolder(first.url);
    await first.relay.stop();
    // As an install made before this rule, under umask 022, left it.
    for (const entry of entries(dataDir)) chmodSync(join(dataDir, entry.path), entry.directory ? 0o755 : 0o644);
    chmodSync(dataDir, 0o755);
    expect(tooOpen(dataDir).length).toBeGreaterThan(5);

    const second = await startRelay(dataDir);
    expect(second.relay.lines.filter((line) => TIGHTENED.test(line))).toHaveLength(1);
    expect(tooOpen(dataDir)).toEqual([]);
    await request(second.url).get('/api/v1/health').expect(200);
    await second.relay.stop();

    const third = await startRelay(dataDir);
    expect(third.relay.lines.filter((line) => TIGHTENED.test(line))).toEqual([]);
  });
});

interface Entry {
  path: string;
  directory: boolean;
}

/** Every folder and file under `root` (relative paths), symlinks not followed. */
function entries(root: string, prefix = ''): Entry[] {
  return readdirSync(join(root, prefix), { withFileTypes: true }).flatMap((e) => {
    const path = prefix ? `${prefix}/${e.name}` : e.name;
    return e.isDirectory() ? [{ path, directory: true }, ...entries(root, path)] : [{ path, directory: false }];
  });
}

function modeOf(path: string): string {
  return (lstatSync(path).mode & 0o777).toString(8);
}

/** `path mode` of the root and everything under it that is not 0700 (folders) or 0600 (files). */
function tooOpen(root: string): string[] {
  const found = modeOf(root) === '700' ? [] : [`. ${modeOf(root)}`];
  for (const entry of entries(root)) {
    const mode = modeOf(join(root, entry.path));
    if (mode !== (entry.directory ? '700' : '600')) found.push(`${entry.path} ${mode}`);
  }
  return found;
}

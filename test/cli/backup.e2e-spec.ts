import { createHash } from 'node:crypto';
import { createReadStream, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import * as tar from 'tar-stream';
import { MemberFactory } from '../support/factory';
import { images } from '../support/images';
import { describeSqliteOnly, startTestRelay, TestRelay } from '../support/test-relay';
import { simulatorBuild } from './build-fixtures';
import { emptyDir, runCli, CLI_TEST_TIMEOUT_MS } from './cli-process';

jest.setTimeout(CLI_TEST_TIMEOUT_MS);

/**
 * `svc backup` while the relay runs and takes writes, then `svc restore` into a fresh data dir and a
 * new relay started on it: the same members, tokens, stored files (and builds, with the builds API).
 */
describeSqliteOnly('the archive holds a VACUUM INTO copy of svc.sqlite; on PostgreSQL back up with pg_dump')('svc backup / svc restore', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  const restored: TestRelay[] = [];
  beforeAll(async () => {
    relay = await startTestRelay();
    members = new MemberFactory(relay);
  });
  afterAll(async () => {
    await Promise.all(restored.map((r) => r.close()));
    await relay.close();
  });

  const relayErrors = () => relay.logger.buffer.tail(500).filter((line) => line.includes('"level":"error"')).join('\n') || 'no error logged';

  it('backs up while writes and uploads run; restore brings the same data back', async () => {
    const owner = await members.admin();
    const dev = await members.member('Developer');
    const devPat = await members.pat(dev);
    const avatarBytes = images.png(300);
    await members.as(owner, 'patch', '/api/v1/profile').attach('avatar', avatarBytes, 'owner.png').expect(200);
    const avatarUrl: string = (await members.as(owner, 'get', '/api/v1/auth/me').expect(200)).body.avatarUrl;
    const avatarPath = avatarUrl.replace(/^\/uploads\//, 'uploads/');
    const uploaded: number[] = [];
    const build = await simulatorBuild({ bundleId: 'com.example.backup' });
    const res = await members.withPat(devPat, 'post', '/api/v1/builds').attach('file', build.path).expect(201);
    uploaded.push(res.body.id);

    // Keep the relay busy while the backup runs: new tokens (and uploads) committing concurrently.
    let writing = true;
    const writes = (async () => {
      let n = 0;
      while (writing) {
        await members.pat(owner);
        if (n++ % 5 === 0) {
          const build = await simulatorBuild({ bundleId: 'com.example.backup', buildNumber: String(100 + n) });
          const upload = await members.withPat(devPat, 'post', '/api/v1/builds').attach('file', build.path);
          // A refusal here once went unexplained (the test relay's log is dropped): name it with the relay's error lines.
          if (upload.status !== 201) throw new Error(`upload during the backup answered ${upload.status} ${JSON.stringify(upload.body)}; ${relayErrors()}`);
        }
      }
    })();
    const archive = join(emptyDir(), 'svc-backup.tar');
    const backup = await runCli(['backup', archive, '--data-dir', relay.dataDir, '--json']);
    writing = false;
    await writes;
    expect(backup.stderr).toBe('');
    expect(backup.code).toBe(0);
    const manifest = JSON.parse(backup.stdout);
    expect(manifest).toMatchObject({ format: 'svc-relay-backup', formatVersion: 1, skipped: [] });
    expect(manifest.files).toContainEqual({ path: avatarPath, bytes: 300, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(await entryNames(archive)).toEqual(expect.arrayContaining(['svc.sqlite', `files/${avatarPath}`, 'manifest.json']));

    const freshDir = join(emptyDir(), 'restored-data');
    const restore = await runCli(['restore', archive, '--data-dir', freshDir]);
    expect(restore.stderr).toBe('');
    expect(restore.code).toBe(0);

    const copy = await startTestRelay({ SVC_DATA_DIR: freshDir });
    restored.push(copy);
    const copyMembers = new MemberFactory(copy);
    const cookie = await copyMembers.login(owner.email);
    // A consistent snapshot: the owner's tokens are exactly the first N the live relay committed.
    const original = (await members.as(owner, 'get', '/api/v1/tokens').expect(200)).body as Array<{ id: number; name: string }>;
    const copied = (await copy.http().get('/api/v1/tokens').set('Cookie', cookie).expect(200)).body as Array<{ id: number; name: string }>;
    expect(copied.length).toBeGreaterThanOrEqual(1);
    expect(copied.map((t) => [t.id, t.name])).toEqual(original.slice(0, copied.length).map((t) => [t.id, t.name]));
    const devTokens = await copy.http().get('/api/v1/tokens').set('Cookie', await copyMembers.login(dev.email)).expect(200);
    expect(devTokens.body).toHaveLength(1);
    // The restored avatar is referenced by the restored row, so the start-up orphan sweep keeps it.
    expect(readFileSync(join(freshDir, avatarPath)).equals(avatarBytes)).toBe(true);
    const served = await copy.http().get(avatarUrl).set('Cookie', cookie).buffer(true).expect(200);
    expect(Buffer.from(served.body).equals(avatarBytes)).toBe(true);
    for (const id of uploaded) {
      const build = await copy.http().get(`/api/v1/builds/${id}`).set('Authorization', `Bearer ${devPat}`).expect(200);
      expect(build.body.bundle_id).toBe('com.example.backup');
      await copy.http().get(`/api/v1/builds/${id}/download`).set('Authorization', `Bearer ${devPat}`).expect(200);
    }
  }, 60_000);

  it('restore refuses a data dir that has a database unless --force, and rejects a damaged archive', async () => {
    await members.admin();
    const archive = join(emptyDir(), 'b.tar');
    expect((await runCli(['backup', archive, '--data-dir', relay.dataDir])).code).toBe(0);

    const target = emptyDir();
    expect((await runCli(['restore', archive, '--data-dir', target])).code).toBe(0);
    const again = await runCli(['restore', archive, '--data-dir', target]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already holds a relay database');
    expect((await runCli(['restore', archive, '--data-dir', target, '--force'])).code).toBe(0);

    const damaged = join(emptyDir(), 'damaged.tar');
    const bytes = readFileSync(archive);
    bytes[bytes.indexOf(Buffer.from('SQLite format 3')) + 4000] ^= 0xff;
    writeFileSync(damaged, bytes);
    const broken = await runCli(['restore', damaged, '--data-dir', emptyDir()]);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain('Backup is damaged: svc.sqlite does not match its checksum');

    const notBackup = join(emptyDir(), 'x.tar');
    writeFileSync(notBackup, 'hello');
    expect((await runCli(['restore', notBackup, '--data-dir', emptyDir()])).code).toBe(1);
  });

  it('a refused restore prints only its message (no stack trace), exits 1 and leaves nothing behind', async () => {
    await members.admin();
    const archive = join(emptyDir(), 'good.tar');
    expect((await runCli(['backup', archive, '--data-dir', relay.dataDir])).code).toBe(0);
    const bytes = readFileSync(archive);
    const notDatabase = Buffer.from('not an SQLite database, though the manifest vouches for it');
    const cases: Array<[string, Buffer | null, string]> = [
      ['not an archive', Buffer.from('hello'), 'is not a readable svc backup (Unexpected end of data)'],
      ['random bytes', Buffer.alloc(3000, 7), 'is not a readable svc backup (Invalid tar header'],
      ['cut short inside the database', bytes.subarray(0, 5000), 'is not a readable svc backup (Unexpected end of data)'],
      ['cut short gzipped', gzipSync(bytes).subarray(0, 2000), 'is not a readable svc backup (unexpected end of file)'],
      ['an entry no backup has', await tarOf({ 'evil.sh': 'rm -rf /' }), 'Unexpected entry in backup: evil.sh'],
      ['a manifest that is not one', await tarOf({ 'manifest.json': '{"format":"zip"}' }), 'manifest.json is not an svc backup manifest'],
      [
        'a database that is no SQLite file, matching its manifest',
        await tarOf({
          'svc.sqlite': notDatabase,
          'manifest.json': JSON.stringify({
            format: 'svc-relay-backup',
            formatVersion: 1,
            database: { bytes: notDatabase.length, sha256: createHash('sha256').update(notDatabase).digest('hex') },
            files: [],
            skipped: [],
          }),
        }),
        'The database in the backup is not a readable SQLite database (file is not a database)',
      ],
      ['a folder', null, 'is not a readable svc backup (EISDIR'],
    ];
    for (const [label, content, message] of cases) {
      const file = join(emptyDir(), 'refused.tar');
      if (content) writeFileSync(file, content);
      else mkdirSync(file);
      const target = join(emptyDir(), 'data');
      const result = await runCli(['restore', file, '--data-dir', target]);
      const outcome = { label, code: result.code, stderr: result.stderr };
      expect(outcome).toEqual({ label, code: 1, stderr: expect.stringContaining(message) });
      expect(outcome).toEqual({ label, code: 1, stderr: expect.not.stringMatching(/^\s+at |unexpected error/m) });
      expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(readdirSync(target)).toEqual([]);
    }
  });

  it('backup of a data dir without a relay database is exit 1 naming the path', async () => {
    const result = await runCli(['backup', join(emptyDir(), 'x.tar'), '--data-dir', emptyDir()]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('No relay database at');
  });
});

describe('svc backup / svc restore with PostgreSQL configured', () => {
  // Refused before any connection is made, so this runs on every test dialect.
  const env = { SVC_DATABASE_URL: 'postgres://svc@127.0.0.1:1/svc' };

  it('backup is exit 1 and points to pg_dump; restore is exit 1', async () => {
    const backup = await runCli(['backup', join(emptyDir(), 'x.tar'), '--data-dir', emptyDir()], { env });
    expect(backup.code).toBe(1);
    expect(backup.stderr).toContain('for PostgreSQL back up with pg_dump');
    const restore = await runCli(['restore', join(emptyDir(), 'x.tar'), '--data-dir', emptyDir()], { env });
    expect(restore.code).toBe(1);
    expect(restore.stderr).toContain('svc restore restores into SQLite; the configured database is PostgreSQL');
  });
});

/** A tar archive of these entries, in this order. */
async function tarOf(entries: Record<string, string | Buffer>): Promise<Buffer> {
  const pack = tar.pack();
  for (const [name, content] of Object.entries(entries)) pack.entry({ name }, content);
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of pack) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function entryNames(archive: string): Promise<string[]> {
  const extract = tar.extract();
  createReadStream(archive).pipe(extract);
  const names: string[] = [];
  for await (const entry of extract) {
    names.push(entry.header.name);
    entry.resume();
  }
  return names;
}

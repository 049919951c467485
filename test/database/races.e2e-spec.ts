import { spawn } from 'node:child_process';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { AppsUniqueBundle1700000013000, APPS_UNIQUE_BUNDLE_INDEX } from '../../src/database/migrations/1700000013000-AppsUniqueBundle';
import { attachBuild } from '../support/build-fixtures';
import { uploadTestBuild } from '../support/builds';
import { images } from '../support/images';
import { MemberFactory, TestMember } from '../support/factory';
import { itPostgresOnly, TestRelay } from '../support/test-relay';
import { useTestRelay } from '../support/use-relay';
import { holdUncommitted, relayWaitsForLock } from '../support/pg-locks';

/**
 * Another transaction on the relay's own database (another pooled connection, another process)
 * that deletes a build and holds the deletion uncommitted until commit(). On PostgreSQL it is a
 * second connection, committed once a relay statement waits for its lock. On SQLite the relay's
 * driver waits for a lock synchronously (busy timeout), freezing this process too, so a child
 * process holds it and commits on its own after `sqliteHoldMs`.
 */
async function holdBuildDeletion(relay: TestRelay, buildId: number, sqliteHoldMs: number): Promise<{ commit: () => Promise<void> }> {
  const db = relay.config.database;
  if (db.type === 'postgres') {
    const deletion = await holdUncommitted(db.url, 'DELETE FROM builds WHERE id = $1', [buildId]);
    return {
      commit: async () => {
        await relayWaitsForLock(db.url);
        await deletion.commit();
      },
    };
  }
  const script = `
    const db = new (require('better-sqlite3'))(process.argv[1]);
    db.pragma('foreign_keys = ON');
    db.exec('BEGIN IMMEDIATE');
    db.prepare('DELETE FROM builds WHERE id = ?').run(Number(process.argv[2]));
    process.stdout.write('held\\n');
    setTimeout(() => { db.exec('COMMIT'); db.close(); }, Number(process.argv[3]));`;
  const child = spawn(process.execPath, ['-e', script, db.path, String(buildId), String(sqliteHoldMs)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve, reject) => child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`holder exited ${code}`)))));
  await new Promise<void>((resolve, reject) => {
    child.stdout.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`holder exited ${code}`)));
  });
  return { commit: () => exited };
}

describe('races and the unique key on (platform, bundle id)', () => {
  const ctx = useTestRelay();
  let relay: TestRelay;
  let members: MemberFactory;
  let admin: TestMember;
  beforeAll(async () => {
    ({ relay, members } = ctx);
    admin = await members.admin();
  });

  const appsWithBundle = async (bundleId: string) =>
    (await members.as(admin, 'get', '/api/v1/apps').expect(200)).body.items.filter((a: { bundle_id_key: string }) => a.bundle_id_key === bundleId);

  it('POST /apps with the bundle id and platform of an existing app is 409; another platform or both is a new app', async () => {
    const body = { name: 'Twice', bundle_id_key: 'com.example.twice', platform: 'ios' };
    await members.as(admin, 'post', '/api/v1/apps').send(body).expect(201);
    const again = await members.as(admin, 'post', '/api/v1/apps').send({ ...body, name: 'Again' });
    expect([again.status, again.body]).toEqual([409, { error: 'An app with this bundle id and platform already exists' }]);
    await members.as(admin, 'post', '/api/v1/apps').send({ ...body, platform: 'android' }).expect(201);
    await members.as(admin, 'post', '/api/v1/apps').send({ ...body, platform: 'both' }).expect(201);
    expect((await appsWithBundle('com.example.twice')).map((a: { platform: string }) => a.platform).sort()).toEqual(['android', 'both', 'ios']);
  });

  itPostgresOnly('SQLite runs one write transaction at a time, so two intakes never interleave')(
    'an upload racing another intake of the same new bundle id files under the winner app, not a second one',
    async () => {
      // The other intake: its new app is inserted but not committed while our upload looks for one.
      const other = new Client({ connectionString: (relay.config.database as { url: string }).url });
      await other.connect();
      try {
        await other.query('BEGIN');
        await other.query(
          "INSERT INTO apps (name, bundle_id_key, platform, created_at) VALUES ('Winner', 'com.example.stringlabel', 'android', 1700000000000)",
        );
        const upload = attachBuild(members.as(admin, 'post', '/api/v1/builds'), 'string-label.apk').then((res) => res);
        // Without the unique key the upload never waits: it creates a second app and answers.
        await Promise.race([relayWaitsForLock((relay.config.database as { url: string }).url), upload]);
        await other.query('COMMIT');
        const res = await upload;
        expect(res.status).toBe(201);
        const apps = await appsWithBundle('com.example.stringlabel');
        expect(apps.map((a: { name: string; platform: string }) => [a.name, a.platform])).toEqual([['Winner', 'android']]);
        expect(res.body.app_id).toBe(apps[0].id);
      } finally {
        await other.end();
      }
    },
  );

  it('a comment posted while its build is being deleted is 404 "Build not found", leaving no row and no attachment file', async () => {
    const build = await uploadTestBuild(members, admin);
    const attachments = () => relay.storedFiles('uploads/comments/');
    const before = await attachments();
    // The deletion has passed the comment's existence check but is not committed when the comment is inserted.
    const deletion = await holdBuildDeletion(relay, build.id, 2000);
    const comment = members
      .as(admin, 'post', '/api/v1/comments')
      .field('build_id', String(build.id))
      .field('body', 'seen it')
      .attach('attachment', images.png(), 'shot.png')
      .then((res) => res);
    await deletion.commit();
    const res = await comment;
    expect([res.status, res.body]).toEqual([404, { error: 'Build not found' }]);
    expect(await attachments()).toEqual(before);
    const rows = await relay.app.get(DataSource).query(`SELECT id FROM comments WHERE build_id = ${build.id}`);
    expect(rows).toEqual([]);
  });

  it('the migration merges existing duplicates into the oldest app (builds kept), then refuses new duplicates', async () => {
    const db = relay.app.get(DataSource);
    const first = await uploadTestBuild(members, admin);
    const second = await uploadTestBuild(members, admin);
    const [keeper] = await appsWithBundle('com.example.stringlabel');
    expect([first.appId, second.appId]).toEqual([keeper.id, keeper.id]);
    // A database from before the unique key: duplicates of the keeper, one holding a build.
    const runner = db.createQueryRunner();
    try {
      await runner.dropIndex('apps', APPS_UNIQUE_BUNDLE_INDEX);
      const insert = (name: string, platform: string) =>
        runner.query(`INSERT INTO apps (name, bundle_id_key, platform, created_at) VALUES ('${name}', 'com.example.stringlabel', '${platform}', 1700000000000)`);
      await insert('Dupe 1', 'android');
      await insert('Dupe 2', 'android');
      await insert('Other platform', 'ios');
      const dupes = await runner.query("SELECT id FROM apps WHERE name LIKE 'Dupe%' ORDER BY id");
      await runner.query(`UPDATE builds SET app_id = ${dupes[0].id} WHERE id = ${second.id}`);
      await new AppsUniqueBundle1700000013000().up(runner);
    } finally {
      await runner.release();
    }
    const apps = await appsWithBundle('com.example.stringlabel');
    expect(apps.map((a: { platform: string }) => a.platform).sort()).toEqual(['android', 'ios']);
    expect(apps.find((a: { platform: string }) => a.platform === 'android').id).toBe(keeper.id);
    for (const id of [first.id, second.id]) {
      expect((await members.as(admin, 'get', `/api/v1/builds/${id}`).expect(200)).body.app_id).toBe(keeper.id);
    }
    await expect(
      db.query("INSERT INTO apps (name, bundle_id_key, platform, created_at) VALUES ('Late', 'com.example.stringlabel', 'android', 1)"),
    ).rejects.toThrow(/unique/i);
  });
});

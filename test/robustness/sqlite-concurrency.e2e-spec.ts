/**
 * Concurrency, on both dialects. On SQLite TypeORM runs every statement on ONE connection, so
 * concurrent requests' writes interleave on it; on PostgreSQL they run at once on a pool of
 * connections (READ COMMITTED). This provokes that (parallel uploads, some failing inside
 * their transaction; role changes; comments with attachments; app, comment and member deletes;
 * avatar and logo replacements) and then checks integrity: no 5xx, no build without its file, no
 * file without its row, every acknowledged write present, counts adding up.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import type { Sql } from '../../src/database/sql';
import { SqlExecutor } from '../../src/database/sql-executor';
import { TransactionRunner } from '../../src/database/transaction-runner';
import { fixture } from '../support/build-fixtures';
import type { TestMember } from '../support/factory';
import { images } from '../support/images';
import { testDialect } from '../support/test-relay';
import { useTestRelay } from '../support/use-relay';
import { contractBreach, eventually, filesUnder, multipartBody, RawResponse, send } from './support/http';

const ROUNDS = Number(process.env.SVC_CONCURRENCY_ROUNDS ?? 2);

describe(`concurrency on ${testDialect}: interleaved writes keep the data consistent`, () => {
  const ctx = useTestRelay();

  it.each(Array.from({ length: ROUNDS }, (_, i) => i + 1))('round %i', async (round) => {
    const { relay, members } = ctx;
    const admin = await members.admin();
    const devs: TestMember[] = [];
    for (let i = 0; i < 6; i++) devs.push(await members.member('Developer'));
    const B = 'concurrencyboundary';
    const apk = readFileSync(fixture('string-label.apk'));
    const ios = (await members.as(admin, 'post', '/api/v1/apps').send({ name: 'iOS only', bundle_id_key: `x.ios.${round}`, platform: 'ios' }).expect(201)).body.id;
    // Apps to delete while uploads into them are in flight.
    const doomed: { appId: number; buildId: number }[] = [];
    for (let i = 0; i < 3; i++) {
      const app = await members.as(admin, 'post', '/api/v1/apps').send({ name: `doomed ${i}`, bundle_id_key: `x.doomed.${round}.${i}`, platform: 'android' }).expect(201);
      const up = await members.as(admin, 'post', '/api/v1/builds').field('app_id', String(app.body.id)).attach('file', apk, 'l.apk').expect(201);
      doomed.push({ appId: up.body.app_id, buildId: up.body.id });
    }
    const target = await members.as(admin, 'post', '/api/v1/builds').attach('file', apk, 's.apk').expect(201);
    const commentTarget: number = target.body.id;
    const oldComments: number[] = [];
    for (let i = 0; i < 6; i++) {
      const c = await members.as(devs[i], 'post', '/api/v1/comments').field('build_id', String(commentTarget)).field('body', 'old').attach('attachment', images.png(), 'o.png').expect(201);
      oldComments.push(c.body.id);
    }
    const victim = await members.member('QA');

    const upload = (fields: { name: string; value: string }[]) =>
      send(relay.url, {
        method: 'POST',
        path: '/api/v1/builds',
        headers: { cookie: admin.cookie, 'content-type': `multipart/form-data; boundary=${B}` },
        body: multipartBody(B, [...fields, { name: 'file', value: apk, filename: 'c.apk' }]),
      });
    const patchForm = (m: TestMember, path: string, part: { name: string; value: Buffer; filename: string }) =>
      send(relay.url, {
        method: 'PATCH',
        path,
        headers: { cookie: m.cookie, 'content-type': `multipart/form-data; boundary=${B}` },
        body: multipartBody(B, [part]),
      });
    const work: { kind: string; run: () => Promise<RawResponse> }[] = [];
    for (let i = 0; i < 12; i++) work.push({ kind: 'upload', run: () => upload([{ name: 'label', value: `c${i}` }]) });
    // Fails inside the upload's transaction (an Android build into an iOS app): rolls back.
    for (let i = 0; i < 6; i++) work.push({ kind: 'upload-fail', run: () => upload([{ name: 'app_id', value: String(ios) }]) });
    for (const d of doomed) {
      work.push({ kind: 'upload-doomed', run: () => upload([{ name: 'app_id', value: String(d.appId) }]) });
      work.push({
        kind: 'delete-app',
        run: () => send(relay.url, { method: 'DELETE', path: `/api/v1/apps/${d.appId}`, headers: { cookie: admin.cookie } }),
      });
    }
    devs.forEach((dev, i) => {
      const role = i % 2 ? 'QA' : 'Viewer';
      work.push({
        kind: `role:${dev.id}:${role}`,
        run: () =>
          send(relay.url, {
            method: 'PATCH',
            path: `/api/v1/team/members/${dev.id}`,
            headers: { cookie: admin.cookie, 'content-type': 'application/json' },
            body: JSON.stringify({ role }),
          }),
      });
      for (let k = 0; k < 3; k++) {
        work.push({
          kind: 'comment',
          run: () =>
            send(relay.url, {
              method: 'POST',
              path: '/api/v1/comments',
              headers: { cookie: dev.cookie, 'content-type': `multipart/form-data; boundary=${B}` },
              body: multipartBody(B, [
                { name: 'build_id', value: String(commentTarget) },
                { name: 'body', value: `c ${i}/${k}` },
                { name: 'attachment', value: images.png(), filename: 'a.png' },
              ]),
            }),
        });
      }
      work.push({
        kind: 'delete-comment',
        run: () => send(relay.url, { method: 'DELETE', path: `/api/v1/comments/${oldComments[i]}`, headers: { cookie: dev.cookie } }),
      });
      // Every Developer replaces their avatar three times at once; the Admin the team logo.
      for (let k = 0; k < 3; k++) {
        work.push({
          kind: 'avatar',
          run: () => patchForm(dev, '/api/v1/profile', { name: 'avatar', value: images.png(300 + k), filename: 'a.png' }),
        });
      }
    });
    for (let k = 0; k < 4; k++) {
      work.push({
        kind: 'logo',
        run: () => patchForm(admin, '/api/v1/settings', { name: 'logo', value: images.jpeg(300 + k), filename: 'l.jpg' }),
      });
    }
    work.push({
      kind: 'delete-member',
      run: () => send(relay.url, { method: 'DELETE', path: `/api/v1/team/members/${victim.id}`, headers: { cookie: admin.cookie } }),
    });

    const results = await Promise.all(work.map(async (w) => ({ kind: w.kind, res: await w.run() })));
    expect(results.map(({ kind, res }) => contractBreach(res, kind)).filter(Boolean)).toEqual([]);
    const statuses = (kind: string) => results.filter((r) => r.kind === kind || r.kind.startsWith(`${kind}:`)).map((r) => r.res.status);
    expect(new Set(statuses('upload'))).toEqual(new Set([201]));
    // An upload racing its app's deletion either lands before it (and goes with the app) or finds no app.
    expect(statuses('upload-doomed').every((s) => s === 201 || s === 404)).toBe(true);
    expect(statuses('upload-fail').every((s) => s === 400)).toBe(true);
    expect(new Set(statuses('comment'))).toEqual(new Set([201]));
    expect(new Set(statuses('delete-comment'))).toEqual(new Set([204]));
    expect(new Set(statuses('delete-app'))).toEqual(new Set([200]));
    expect(new Set(statuses('role'))).toEqual(new Set([200]));
    expect(new Set(statuses('avatar'))).toEqual(new Set([200]));
    expect(new Set(statuses('logo'))).toEqual(new Set([200]));
    expect(statuses('delete-member')).toEqual([204]);

    // Every acknowledged upload is there (unless its app was deleted with it), and nothing else.
    const db = relay.app.get(DataSource);
    const builds: { id: number; file_name: string; app_id: number }[] = await db.query('SELECT id, file_name, app_id FROM builds');
    const created = results
      .filter((r) => r.kind === 'upload' && r.res.status === 201)
      .map((r) => JSON.parse(r.res.text).id as number);
    expect(builds.map((b) => b.id)).toEqual(expect.arrayContaining(created));
    const deletedApps = new Set(doomed.map((d) => d.appId));
    expect(builds.filter((b) => deletedApps.has(b.app_id))).toEqual([]);
    const apps: { id: number }[] = await db.query('SELECT id FROM apps');
    expect(apps.filter((a) => deletedApps.has(a.id))).toEqual([]);

    // Files and rows match one to one, with nothing left in tmp.
    expect(await eventually(() => filesUnder(join(relay.dataDir, 'tmp')).length === 0)).toBe(true);
    expect(filesUnder(join(relay.dataDir, 'builds')).sort()).toEqual(builds.map((b) => b.file_name).sort());
    const attachments: { file_path: string; comment_id: number }[] = await db.query('SELECT file_path, comment_id FROM comment_attachments');
    expect(filesUnder(join(relay.dataDir, 'uploads', 'comments')).map((f) => `comments/${f}`).sort()).toEqual(
      attachments.map((a) => a.file_path).sort(),
    );
    const avatars: { avatar_path: string }[] = await db.query('SELECT avatar_path FROM users WHERE avatar_path IS NOT NULL');
    expect(filesUnder(join(relay.dataDir, 'uploads', 'avatars')).map((f) => `avatars/${f}`).sort()).toEqual(
      avatars.map((a) => a.avatar_path).sort(),
    );
    const logos: { logo_path: string | null }[] = await db.query('SELECT logo_path FROM team_settings');
    expect(filesUnder(join(relay.dataDir, 'uploads', 'logos')).map((f) => `logos/${f}`)).toEqual(
      logos.map((l) => l.logo_path).filter(Boolean),
    );

    // Comments: every acknowledged one listed, the deleted ones gone.
    const listed = (await members.as(admin, 'get', `/api/v1/comments?build_id=${commentTarget}`).expect(200)).body.map((c: { id: number }) => c.id);
    const posted = results.filter((r) => r.kind === 'comment').map((r) => JSON.parse(r.res.text).id as number);
    expect(listed).toEqual(expect.arrayContaining(posted));
    for (const id of oldComments) expect(listed).not.toContain(id);

    // Roles: each member has the role their (only) change set; the deleted member is gone.
    const team = (await members.as(admin, 'get', '/api/v1/team/members').expect(200)).body as { id: number; role: string }[];
    devs.forEach((dev, i) => expect(team.find((m) => m.id === dev.id)?.role).toBe(i % 2 ? 'QA' : 'Viewer'));
    expect(team.find((m) => m.id === victim.id)).toBeUndefined();
    if (testDialect === 'sqlite') {
      expect(await db.query('PRAGMA integrity_check')).toEqual([{ integrity_check: 'ok' }]);
      expect(await db.query('PRAGMA foreign_key_check')).toEqual([]);
    } else {
      // PostgreSQL checks every foreign key at each statement; what it cannot see is a comment of a deleted build kept by a race.
      expect(await db.query('SELECT c.id FROM comments c LEFT JOIN builds b ON b.id = c.build_id WHERE b.id IS NULL')).toEqual([]);
    }
  });

  // SQLite: the one shared connection, which the runner hands to one transaction at a time; PostgreSQL: a pooled connection each.
  describe('the TransactionRunner', () => {
    // Literal SQL (no placeholders: `?` on SQLite, `$1` on PostgreSQL); names are constants here.
    const insertApp = (db: Sql, name: string) =>
      db.query(`INSERT INTO apps (name, bundle_id_key, platform, created_at) VALUES ('${name}', 'x.runner.${name}', 'ios', 0)`);
    const names = async (db: Sql) => (await db.query<{ name: string }>("SELECT name FROM apps WHERE bundle_id_key LIKE 'x.runner.%' ORDER BY id")).map((r) => r.name);
    const later = (ms: number) => new Promise((r) => setTimeout(r, ms));

    it('a statement issued while another request\'s transaction is open is not rolled back with it', async () => {
      const runner = ctx.relay.app.get(TransactionRunner);
      const db = ctx.relay.app.get(SqlExecutor);
      const failing = runner.run(async (tx) => {
        await insertApp(tx, 'inside');
        await later(50); // file I/O inside a transaction, as an upload's rename is
        throw new Error('rolled back');
      });
      const failed = failing.catch((err: Error) => err); // handled now: on PostgreSQL it may fail before the insert below ends
      await later(10);
      await insertApp(db, 'outside'); // another request's plain write, while the transaction is open
      expect(await failed).toEqual(new Error('rolled back'));
      expect(await names(db)).toEqual(['outside']);
    });

    it('two transactions at once do not nest: each commits or rolls back on its own', async () => {
      const runner = ctx.relay.app.get(TransactionRunner);
      const db = ctx.relay.app.get(SqlExecutor);
      await db.query("DELETE FROM apps WHERE bundle_id_key LIKE 'x.runner.%'");
      const first = runner.run(async (tx) => {
        await insertApp(tx, 'first');
        await later(30);
      });
      const second = runner.run(async (tx) => {
        await insertApp(tx, 'second');
        await later(60);
        throw new Error('second fails');
      });
      // Both settle before either is judged: on PostgreSQL they run at once and either may end first.
      const [firstOutcome, secondOutcome] = await Promise.allSettled([first, second]);
      expect(firstOutcome.status).toBe('fulfilled');
      expect(secondOutcome).toEqual({ status: 'rejected', reason: new Error('second fails') });
      // Nested as savepoints, the second's ROLLBACK would have taken the first's committed row with it.
      expect(await names(db)).toEqual(['first']);
    });
  });
});

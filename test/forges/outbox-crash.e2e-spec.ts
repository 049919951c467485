/**
 * The forge outbox across kill -9 (issue 25, docs/integrations.md "Delivered like money"): the
 * relay runs as a child process (as in test/robustness/crash-safety) and is killed
 * - while a status request is in flight (the local GitHub holds its answer): after the restart the
 *   status is sent again and arrives;
 * - after a verdict was committed but before its status was queued: simulated exactly by a run
 *   with no forge configured (the verdict and the history entry are committed, nothing is queued),
 *   killed; the next start with the forge reads the history from its cursor (set by the first test's first start) and delivers it.
 * Under `npm run test:postgres` the child relay runs on a PostgreSQL database of its own.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { Client } from 'pg';
import { join } from 'node:path';
import { fixture } from '../support/build-fixtures';
import { ChildRelay, startChildRelay } from '../robustness/support/child-relay';
import { createTestDatabase } from '../support/test-relay';
import { multipartBody, send, sendJson } from '../robustness/support/http';
import { forgeConfigPath, until, writeForgeConfig } from './support/forge-relay';
import { TestForge } from './support/forge-server';

// Two child starts per test; on a loaded machine (and on a fresh PostgreSQL database) one start can pass a minute.
jest.setTimeout(300_000);

const TOKEN = 'ghp_crash_token';
const STATUS = 'repos/create-commit-status';
const SHA = '6'.repeat(40);
const SHA_LATE = '7'.repeat(40);

describe('forge outbox: kill -9 and restart on the same data dir', () => {
  const forge = new TestForge('github', { token: TOKEN });
  let dataDir: string;
  let config: string;
  let relay: ChildRelay | null = null;
  let database: Awaited<ReturnType<typeof createTestDatabase>> = null;

  beforeAll(async () => {
    await forge.start();
    database = await createTestDatabase();
    dataDir = mkdtempSync(join(tmpdir(), 'svc-forge-crash-'));
    config = forgeConfigPath();
    writeForgeConfig(config, [{ type: 'github', url: forge.url, tokenEnv: 'GH_CRASH_TOKEN', repositories: ['acme/app'] }]);
  });
  afterAll(async () => {
    await relay?.kill();
    await forge.close();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const start = async (withForge: boolean) => {
    // Without SVC_CONFIG the child reads svc.config.json from its data dir, where there is none: no forge.
    const db: Record<string, string> = database ? { SVC_DATABASE_URL: database.url } : {};
    relay = await startChildRelay(dataDir, withForge ? { ...db, SVC_CONFIG: config, GH_CRASH_TOKEN: TOKEN } : db, 120_000);
    return relay;
  };
  const json = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => sendJson(relay!.url, method, path, body, headers);
  const login = async () => {
    const res = await send(relay!.url, {
      method: 'POST',
      path: '/api/v1/auth/login',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'admin@example.com', password: 'correct horse battery' }),
    });
    return String(res.headers['set-cookie']).split(';')[0];
  };
  const upload = async (pat: string, sha: string) => {
    const boundary = 'forgecrash';
    const res = await send(relay!.url, {
      method: 'POST',
      path: '/api/v1/builds',
      headers: { authorization: `Bearer ${pat}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: multipartBody(boundary, [
        { name: 'commit', value: sha },
        { name: 'repository', value: 'acme/app' },
        { name: 'file', value: readFileSync(fixture('string-label.apk')), filename: 'a.apk' },
      ]),
    });
    expect(res.status).toBe(201);
    return JSON.parse(res.text).id as number;
  };
  const states = (sha: string) => forge.of(STATUS).filter((r) => r.path.endsWith(sha)).map((r) => (r.body as { state: string }).state);

  it('a status whose request was in flight at the kill is sent again after the restart', async () => {
    await start(true);
    expect((await json('POST', '/auth/init', { email: 'admin@example.com', password: 'correct horse battery' })).status).toBe(201);
    const cookie = await login();
    const pat = (await json('POST', '/tokens', { name: 'ci', scope: 'view,builds:write' }, { cookie })).body.token;
    const id = await upload(pat, SHA);
    await until('pending', () => states(SHA).length === 1);

    // The forge takes the success request and never answers; the verdict itself is not held up.
    let release!: () => void;
    forge.script(STATUS, { status: 201, body: {}, hold: new Promise<void>((resolve) => (release = resolve)) });
    expect((await json('PATCH', `/builds/${id}`, { status_label: 'Done' }, { cookie })).status).toBe(200);
    await until('success in flight', () => states(SHA).length === 2);
    expect(await relay!.kill('SIGKILL')).toBe('SIGKILL');
    release();

    await start(true);
    await until('success sent again after the restart', () => states(SHA).length === 3, 20_000);
    expect(states(SHA)).toEqual(['pending', 'success', 'success']);
    await relay!.kill('SIGKILL');
    if (database) {
      // On PostgreSQL the outbox is really there (not in a SQLite file in the data dir).
      const pg = new Client({ connectionString: database.url });
      await pg.connect();
      try {
        // (The kill may come before the relay marks the resent success delivered: states are not asserted.)
        expect((await pg.query('SELECT state FROM forge_status_outbox WHERE commit_sha = $1 ORDER BY id', [SHA])).rows.map((r) => r.state)).toEqual(['pending', 'success']);
      } finally {
        await pg.end();
      }
    }
  });

  it('a verdict committed but not yet queued at the kill is queued and delivered on the next start', async () => {
    await start(false);
    const cookie = await login();
    const pat = (await json('POST', '/tokens', { name: 'ci2', scope: 'view,builds:write' }, { cookie })).body.token;
    const id = await upload(pat, SHA_LATE);
    expect((await json('PATCH', `/builds/${id}`, { status_label: 'Rejected' }, { cookie })).status).toBe(200);
    expect(await relay!.kill('SIGKILL')).toBe('SIGKILL');
    expect(states(SHA_LATE)).toEqual([]);

    await start(true);
    await until('the verdict delivered from the history', () => states(SHA_LATE).includes('failure'), 20_000);
    // Only the newest status of the commit's context is sent: the upload's pending was overtaken before it was queued.
    expect(states(SHA_LATE)).toEqual(['failure']);
    expect(forge.problems()).toEqual([]);
  });
});

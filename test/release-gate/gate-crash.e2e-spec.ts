/**
 * The release gate across kill -9 (issue 38): the relay runs as a child process (as in
 * test/forges/outbox-crash) on one data dir, killed
 * - while the gate's green status is in flight at the forge (the local GitHub holds its answer):
 *   after the restart `svc/release-gate` arrives green, and the gate still reads passed;
 * - with a red gate under `blockDone`: after the restart Done is still refused, and allowed once approved;
 * - after the restart, a byte-identical rebuild on a new commit keeps the approval (digest and reviews are stored);
 * - with a build red for a new listed permission: still red after the restart (as stored and as evaluated),
 *   green at the forge once the named role (Admin) approves.
 * Under `npm run test:postgres` the child relay runs on a PostgreSQL database of its own.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixture } from '../support/build-fixtures';
import { ChildRelay, startChildRelay } from '../robustness/support/child-relay';
import { createTestDatabase } from '../support/test-relay';
import { multipartBody, send, sendJson } from '../robustness/support/http';
import { forgeConfigPath, until } from '../forges/support/forge-relay';
import { TestForge } from '../forges/support/forge-server';

// Several child starts; on a loaded machine (and on a fresh PostgreSQL database) one start can pass a minute.
jest.setTimeout(600_000);

const TOKEN = 'ghp_gate_crash_token';
const STATUS = 'repos/create-commit-status';
const GATE = 'svc/release-gate';
const SHA = '8'.repeat(40);
const SHA_RED = '9'.repeat(40);
const SHA_NEXT = 'a'.repeat(40);
const SHA_SHOP_1 = 'b'.repeat(40);
const SHA_SHOP_2 = 'c'.repeat(40);
const CAMERA_RULE = { when: 'new_permission', permissions: ['android.permission.CAMERA'], then: 'require_approval', role: 'Admin' };

describe('release gate: kill -9 and restart on the same data dir', () => {
  const forge = new TestForge('github', { token: TOKEN });
  let dataDir: string;
  let config: string;
  let relay: ChildRelay | null = null;
  let database: Awaited<ReturnType<typeof createTestDatabase>> = null;
  let cookie: string;
  let pat: string;

  beforeAll(async () => {
    await forge.start();
    database = await createTestDatabase();
    dataDir = mkdtempSync(join(tmpdir(), 'svc-gate-crash-'));
    config = forgeConfigPath();
    writeFileSync(
      config,
      JSON.stringify({
        forges: [{ type: 'github', url: forge.url, tokenEnv: 'GH_GATE_CRASH_TOKEN', repositories: ['acme/app'] }],
        releaseGate: { default: { approvals: { Admin: 1 }, blockDone: true, rules: [CAMERA_RULE] } },
      }),
    );
  });
  afterAll(async () => {
    await relay?.kill();
    await forge.close();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const start = async (first = false) => {
    const db: Record<string, string> = database ? { SVC_DATABASE_URL: database.url } : {};
    relay = await startChildRelay(dataDir, { ...db, SVC_CONFIG: config, GH_GATE_CRASH_TOKEN: TOKEN }, 180_000);
    if (first) expect((await sendJson(relay.url, 'POST', '/auth/init', { email: 'admin@example.com', password: 'correct horse battery' })).status).toBe(201);
    const res = await send(relay.url, {
      method: 'POST',
      path: '/api/v1/auth/login',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'admin@example.com', password: 'correct horse battery' }),
    });
    cookie = String(res.headers['set-cookie']).split(';')[0];
  };
  const json = (method: string, path: string, body?: unknown, headers: Record<string, string> = { cookie }) => sendJson(relay!.url, method, path, body, headers);
  const upload = async (sha: string, file = sha === SHA ? 'string-label.apk' : 'literal-label.apk') => {
    const boundary = 'gatecrash';
    const res = await send(relay!.url, {
      method: 'POST',
      path: '/api/v1/builds',
      headers: { authorization: `Bearer ${pat}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: multipartBody(boundary, [
        { name: 'commit', value: sha },
        { name: 'repository', value: 'acme/app' },
        { name: 'pull_request', value: '12' },
        { name: 'file', value: readFileSync(fixture(file)), filename: 'a.apk' },
      ]),
    });
    expect(res.status).toBe(201);
    return JSON.parse(res.text).id as number;
  };
  const gateStates = (sha: string) =>
    forge
      .of(STATUS)
      .filter((r) => r.path.endsWith(sha) && (r.body as { context: string }).context === GATE)
      .map((r) => (r.body as { state: string }).state);

  it('a green gate whose status was in flight at the kill arrives after the restart', async () => {
    await start(true);
    pat = (await json('POST', '/tokens', { name: 'ci', scope: 'view,builds:write' })).body.token;
    const id = await upload(SHA);
    await until('the gate red', () => gateStates(SHA).at(-1) === 'failure');

    let release!: () => void;
    forge.script(STATUS, { status: 201, body: {}, hold: new Promise<void>((resolve) => (release = resolve)) });
    expect((await json('POST', `/builds/${id}/reviews`, { verdict: 'approve' })).status).toBe(201);
    await until('green in flight', () => gateStates(SHA).at(-1) === 'success');
    const sent = gateStates(SHA).length;
    expect(await relay!.kill('SIGKILL')).toBe('SIGKILL');
    release();

    await start();
    await until('green sent again after the restart', () => gateStates(SHA).length > sent, 20_000);
    expect(gateStates(SHA).at(-1)).toBe('success');
    // The list's filter reads the state kept beside the build (before GET /gate evaluates it again).
    expect((await json('GET', '/builds?gate=passed')).body.items.map((b: { id: number }) => b.id)).toEqual([id]);
    expect((await json('GET', `/builds/${id}/gate`)).body.state).toBe('passed');
    expect(forge.problems()).toEqual([]);
  });

  it('Done stays refused across a kill -9 while the gate is red, and is allowed once approved', async () => {
    const id = await upload(SHA_RED);
    await until('the new commit red', () => gateStates(SHA_RED).at(-1) === 'failure');
    expect(await relay!.kill('SIGKILL')).toBe('SIGKILL');

    await start();
    const refused = await json('PATCH', `/builds/${id}`, { status_label: 'Done' });
    expect([refused.status, refused.body.error]).toEqual([409, `Build ${id} cannot be marked Done while its release gate is failed (needs 1 more Admin approval (0 of 1)); Rejected is still possible`]);
    expect((await json('POST', `/builds/${id}/reviews`, { verdict: 'approve' })).status).toBe(201);
    await until('the new commit green', () => gateStates(SHA_RED).at(-1) === 'success');
    expect((await json('PATCH', `/builds/${id}`, { status_label: 'Done' })).status).toBe(200);
  });

  it('a byte-identical rebuild after the restart keeps the approval given before it, on its new commit', async () => {
    const rebuild = await upload(SHA_NEXT);
    await until('the new commit green on the carried approval', () => gateStates(SHA_NEXT).at(-1) === 'success');
    const { reviews } = (await json('GET', `/builds/${rebuild}/reviews`)).body;
    expect(reviews).toEqual([expect.objectContaining({ verdict: 'approve', carried_reason: expect.stringMatching(/^byte-identical to build #\d+ \(same SHA-256\)$/) })]);
    expect(forge.problems()).toEqual([]);
  });

  it('a build red for a new listed permission stays red across a kill -9 and turns green once the named role approves', async () => {
    await upload(SHA_SHOP_1, 'contents/shop-1.apk');
    await until('the first shop build red (no approval yet)', () => gateStates(SHA_SHOP_1).at(-1) === 'failure');
    const id = await upload(SHA_SHOP_2, 'contents/shop-2.apk');
    await until('red on the new permission', () => gateStates(SHA_SHOP_2).at(-1) === 'failure');
    const permission = (checks: { key: string; outcome: string; detail: string }[]) => checks.find((c) => c.key === 'rules[0].new_permission');
    expect(permission((await json('GET', `/builds/${id}/gate`)).body.checks)).toEqual(
      expect.objectContaining({ outcome: 'unmet', detail: expect.stringMatching(/^new permission android\.permission\.CAMERA since build #\d+: needs an approval by Admin$/) }),
    );
    expect(await relay!.kill('SIGKILL')).toBe('SIGKILL');

    await start();
    // As stored (the list's filter), then evaluated again: still red on the permission.
    expect((await json('GET', '/builds?gate=failed')).body.items.map((b: { id: number }) => b.id)).toContain(id);
    expect(permission((await json('GET', `/builds/${id}/gate`)).body.checks)?.outcome).toBe('unmet');
    expect(gateStates(SHA_SHOP_2).at(-1)).toBe('failure');

    expect((await json('POST', `/builds/${id}/reviews`, { verdict: 'approve' })).status).toBe(201);
    await until('green at the forge once the Admin approved', () => gateStates(SHA_SHOP_2).at(-1) === 'success');
    const gate = (await json('GET', `/builds/${id}/gate`)).body;
    expect([gate.state, permission(gate.checks)?.outcome]).toEqual(['passed', 'met']);
    expect((await json('GET', '/builds?gate=passed')).body.items.map((b: { id: number }) => b.id)).toContain(id);
    expect(forge.problems()).toEqual([]);
  });
});

import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { attachBuild } from '../support/build-fixtures';
import { describeUnless } from '../support/describe-unless';
import type { TestMember } from '../support/factory';
import { startTestRelay, testDialect, TestRelay } from '../support/test-relay';
import { testLanSkipReason } from '../support/test-lan';
import { useTestRelay } from '../support/use-relay';
import { fakeDns } from '../webhooks/support/webhook-helpers';
import { forgeConfigPath, SHA_A, until, writeForgeConfig } from './support/forge-relay';
import { TestForge } from './support/forge-server';
import { putForgeOnLan } from './support/lan-forge';

const KEY = randomBytes(32).toString('base64');
const TOKEN = 'ghp_dashboard_secret_token_0123456789';
const STATUS = 'repos/create-commit-status';

const forgeBody = (extra: Record<string, unknown> = {}) => ({ type: 'github', url: 'http://10.0.0.5/api/v3', repositories: ['acme/dash'], token: TOKEN, ...extra });

/** Whatever the relay stored about its dashboard forges, as the database holds it (both dialects). */
const rawForgeRows = (relay: TestRelay) => relay.app.get(DataSource).query('SELECT * FROM forges');

/**
 * Forges added by an Admin in the dashboard (issue 25, docs/integrations.md "Forges added in the
 * dashboard"): Admin-only CRUD, validation, the token sealed at rest with SVC_SECRETS_KEY and never
 * answered, the webhooks' SSRF rule for API-registered destinations (at creation and on every
 * request), one forge per repository, and the audit log.
 */
describe('forges added in the dashboard: the API', () => {
  const config = forgeConfigPath();
  beforeAll(() => writeForgeConfig(config, [{ type: 'github', url: 'http://127.0.0.1:9/api/v3', tokenEnv: 'UNSET_TEST_VARIABLE', repositories: ['acme/file-app'] }]));
  const ctx = useTestRelay({ SVC_CONFIG: config, SVC_SECRETS_KEY: KEY });
  let admin: TestMember;
  beforeAll(async () => {
    admin = await ctx.members.admin();
    fakeDns(ctx.relay, { 'forge.test': ['10.0.0.6'], 'loopback.test': ['127.0.0.1'] });
  });
  const post = (body: unknown) => ctx.members.as(admin, 'post', '/api/v1/forges').send(body as object);

  it('is an Admin\'s: every other role gets 403, nobody signed in 401', async () => {
    const created = (await post(forgeBody({ repositories: ['acme/roles'] })).expect(201)).body;
    for (const role of ['Developer', 'QA', 'Viewer'] as const) {
      const member = await ctx.members.member(role);
      await ctx.members.as(member, 'post', '/api/v1/forges').send(forgeBody({ repositories: ['acme/other'] })).expect(403);
      await ctx.members.as(member, 'patch', `/api/v1/forges/${created.id}`).send({ context: 'x' }).expect(403);
      await ctx.members.as(member, 'delete', `/api/v1/forges/${created.id}`).expect(403);
      await ctx.members.as(member, 'post', `/api/v1/forges/${created.id}/test`).send({ repository: 'acme/roles', commit: SHA_A }).expect(403);
      await ctx.members.as(member, 'get', `/api/v1/forges/${created.id}/deliveries`).expect(403);
    }
    await ctx.relay.http().post('/api/v1/forges').send(forgeBody()).expect(401);
    await ctx.members.as(admin, 'delete', `/api/v1/forges/${created.id}`).expect(200);
  });

  it.each([
    [{ ...forgeBody(), type: 'bitbucket' }, 'type must be one of github, gitlab, gitea'],
    [{ ...forgeBody(), url: undefined }, 'url must be the http(s) URL of the forge API'],
    [{ ...forgeBody(), repositories: [] }, 'repositories must list at least one "owner/name"'],
    [{ ...forgeBody(), repositories: ['noslash'] }, 'each repository must be "owner/name" (GitLab: "group/subgroup/name")'],
    [{ ...forgeBody(), repositories: 'acme/app' }, 'repositories must be an array of "owner/name"'],
    [{ ...forgeBody(), token: undefined }, 'token is required (or, for GitHub, app_id, installation_id and private_key)'],
    [{ ...forgeBody(), token: '' }, 'token must be a non-empty string'],
    [{ ...forgeBody(), app_id: 1 }, 'Send either token, or app_id, installation_id and private_key, not both'],
    [{ ...forgeBody(), token: undefined, app_id: 1, installation_id: 2 }, 'A GitHub App needs app_id, installation_id and private_key'],
    [{ ...forgeBody(), token: undefined, app_id: 'x', installation_id: 2, private_key: 'k' }, 'app_id must be a positive integer'],
    [{ ...forgeBody(), token: undefined, app_id: 1, installation_id: 2, private_key: 'not a key' }, "private_key must be the App's PEM private key (the .pem file GitHub gave)"],
    [{ ...forgeBody(), type: 'gitlab', token: undefined, app_id: 1, installation_id: 2, private_key: 'k' }, 'A GitHub App (app_id, installation_id, private_key) is only for type github'],
    [{ ...forgeBody(), context: 'x'.repeat(101) }, 'context must be a string of 1 to 100 characters'],
    [{ ...forgeBody(), url: 'ftp://10.0.0.5/' }, 'Forge URL refused: only http and https URLs are allowed, not ftp'],
  ])('POST %j → 400 %j, nothing stored', async (body, error) => {
    expect((await post(body).expect(400)).body).toEqual({ error });
    expect(await rawForgeRows(ctx.relay)).toEqual([]);
  });

  it.each([
    ['http://127.0.0.1:8080/api/v3', /^Forge URL refused: 127\.0\.0\.1 is a loopback address$/],
    ['http://localhost/api/v4', /localhost is a loopback host/],
    ['http://169.254.169.254/latest', /169\.254\.169\.254 is a cloud metadata address/],
    ['http://[::ffff:127.0.0.1]/api/v1', /IPv6 form of 127\.0\.0\.1/],
    ['http://loopback.test/api/v3', /loopback\.test resolves to 127\.0\.0\.1, a loopback address/],
  ])('refuses a dashboard forge at %s (the rule of API-registered webhooks), on POST and on PATCH', async (url, reason) => {
    const res = await post(forgeBody({ url })).expect(400);
    expect(res.body.error).toMatch(reason);
    const created = (await post(forgeBody({ repositories: ['acme/ssrf'] })).expect(201)).body;
    expect((await ctx.members.as(admin, 'patch', `/api/v1/forges/${created.id}`).send({ url }).expect(400)).body.error).toMatch(reason);
    expect((await ctx.members.as(admin, 'get', '/api/v1/forges').expect(200)).body.forges.find((f: { id: number }) => f.id === created.id).api_url).toBe('http://10.0.0.5/api/v3');
    await ctx.members.as(admin, 'delete', `/api/v1/forges/${created.id}`).expect(200);
  });

  it('checks the destination again on every request: a name that now resolves to loopback is refused', async () => {
    const created = (await post(forgeBody({ url: 'http://forge.test/api/v3', repositories: ['acme/rebind'] })).expect(201)).body;
    fakeDns(ctx.relay, { 'forge.test': ['127.0.0.1'] });
    const sent = await ctx.members.as(admin, 'post', `/api/v1/forges/${created.id}/test`).send({ repository: 'acme/rebind', commit: SHA_A }).expect(200);
    expect(sent.body).toEqual({ ok: false, status_code: null, error: 'destination refused: forge.test resolves to 127.0.0.1, a loopback address', context: 'svc/review/test' });
    const log = (await ctx.members.as(admin, 'get', `/api/v1/forges/${created.id}/deliveries`).expect(200)).body.deliveries;
    expect(log).toEqual([expect.objectContaining({ test: true, status_code: null, error: sent.body.error, repository: 'acme/rebind', commit: SHA_A, context: 'svc/review/test' })]);
    fakeDns(ctx.relay, { 'forge.test': ['10.0.0.6'], 'loopback.test': ['127.0.0.1'] });
    await ctx.members.as(admin, 'delete', `/api/v1/forges/${created.id}`).expect(200);
  });

  it('keeps the token sealed at rest and never answers it; has_token says it is set', async () => {
    const created = await post(forgeBody({ url: 'http://10.0.0.5/api/v3/', repositories: ['Acme/Sealed', 'acme/sealed-2'] })).expect(201);
    expect(created.body).toEqual({
      source: 'dashboard',
      index: null,
      id: expect.any(Number),
      type: 'github',
      api_url: 'http://10.0.0.5/api/v3',
      web_url: 'http://10.0.0.5',
      repositories: ['Acme/Sealed', 'acme/sealed-2'],
      context: 'svc/review',
      auth: 'token',
      has_token: true,
      has_private_key: false,
      app_id: null,
      installation_id: null,
      problem: null,
    });
    const listed = (await ctx.members.as(admin, 'get', '/api/v1/forges').expect(200)).body.forges;
    expect(listed.map((f: { source: string }) => f.source)).toEqual(['config', 'dashboard']);
    expect(JSON.stringify(listed)).not.toContain(TOKEN);

    const [row] = await rawForgeRows(ctx.relay);
    expect(JSON.stringify(row)).not.toContain(TOKEN);
    expect(row.token_sealed).toMatch(/^v1\.[\w-]{8}\.[\w-]{16}\.[\w-]+\.[\w-]{22}$/);
    if (testDialect === 'sqlite') {
      // The file itself (and its write-ahead log) never held the token in clear.
      const db = new Database(join(ctx.relay.dataDir, 'svc.sqlite'), { readonly: true, fileMustExist: true });
      try {
        expect(JSON.stringify(db.prepare('SELECT * FROM forges').all())).not.toContain(TOKEN);
      } finally {
        db.close();
      }
      for (const name of readdirSync(ctx.relay.dataDir).filter((n) => n.startsWith('svc.sqlite'))) {
        expect(readFileSync(join(ctx.relay.dataDir, name)).includes(Buffer.from(TOKEN))).toBe(false);
      }
    }

    // PATCH: a new token is sealed anew; other fields leave it alone.
    const id = created.body.id;
    const renamed = await ctx.members.as(admin, 'patch', `/api/v1/forges/${id}`).send({ context: 'qa/review' }).expect(200);
    expect(renamed.body).toEqual(expect.objectContaining({ context: 'qa/review', has_token: true }));
    await ctx.members.as(admin, 'patch', `/api/v1/forges/${id}`).send({ token: 'ghp_new_token_value' }).expect(200);
    const [after] = await rawForgeRows(ctx.relay);
    expect(after.token_sealed).not.toBe(row.token_sealed);
    expect(JSON.stringify(after)).not.toContain('ghp_new_token_value');
    expect((await ctx.members.as(admin, 'patch', `/api/v1/forges/${id}`).send({}).expect(400)).body).toEqual({
      error: 'Nothing to update: send url, repositories, context, token, or app_id, installation_id and private_key',
    });
    await ctx.members.as(admin, 'patch', '/api/v1/forges/999').send({ context: 'x' }).expect(404);

    // The audit log says what changed, never the secret.
    const audit = await until('audit entries', async () => {
      const res = await ctx.members.as(admin, 'get', `/api/v1/audit?action=forge.&limit=100`).expect(200);
      const mine = res.body.items.filter((e: { target: string }) => e.target === `forge:${id}`);
      return mine.length >= 3 ? mine : null;
    });
    expect(audit.map((e: { action: string; details: unknown }) => [e.action, e.details]).reverse()).toEqual([
      ['forge.created', { type: 'github', destination: 'http://10.0.0.5', repositories: 'Acme/Sealed, acme/sealed-2', auth: 'token' }],
      ['forge.updated', { fields: 'context' }],
      ['forge.updated', { fields: 'token', credential_replaced: true }],
    ]);
    expect(JSON.stringify(audit)).not.toMatch(/ghp_/);

    await ctx.members.as(admin, 'delete', `/api/v1/forges/${id}`).expect(200);
    await ctx.members.as(admin, 'delete', `/api/v1/forges/${id}`).expect(404);
    expect(await rawForgeRows(ctx.relay)).toEqual([]);
    await until('deletion audited', async () => {
      const res = await ctx.members.as(admin, 'get', '/api/v1/audit?action=forge.deleted').expect(200);
      return res.body.items.find((e: { target: string; details: object }) => e.target === `forge:${id}` && JSON.stringify(e.details) === JSON.stringify({ type: 'github', destination: 'http://10.0.0.5', repositories: 'Acme/Sealed, acme/sealed-2' }));
    });
  });

  it('serves each repository from one forge: a second claim is 409, whatever its case or source', async () => {
    const first = (await post(forgeBody({ repositories: ['acme/one'] })).expect(201)).body;
    expect((await post(forgeBody({ repositories: ['other/x', 'ACME/One'] })).expect(409)).body).toEqual({ error: `ACME/One is already served by forge #${first.id}` });
    expect((await post(forgeBody({ repositories: ['acme/file-app'] })).expect(409)).body).toEqual({ error: 'acme/file-app is already served by svc.config.json forges[0]' });
    const second = (await post(forgeBody({ repositories: ['acme/two'] })).expect(201)).body;
    expect((await ctx.members.as(admin, 'patch', `/api/v1/forges/${second.id}`).send({ repositories: ['acme/two', 'acme/one'] }).expect(409)).body).toEqual({
      error: `acme/one is already served by forge #${first.id}`,
    });
    // Its own repositories are no conflict, and a list with repeats keeps one of each.
    const kept = await ctx.members.as(admin, 'patch', `/api/v1/forges/${second.id}`).send({ repositories: ['acme/two', 'Acme/Two', 'acme/three'] }).expect(200);
    expect(kept.body.repositories).toEqual(['acme/three', 'Acme/Two']);
    await ctx.members.as(admin, 'delete', `/api/v1/forges/${first.id}`).expect(200);
    await ctx.members.as(admin, 'delete', `/api/v1/forges/${second.id}`).expect(200);
  });
});

describe('forges added in the dashboard without SVC_SECRETS_KEY', () => {
  const ctx = useTestRelay();

  it('refuses to add one, naming the variable to set', async () => {
    const admin = await ctx.members.admin();
    const res = await ctx.members.as(admin, 'post', '/api/v1/forges').send(forgeBody()).expect(400);
    expect(res.body.error).toMatch(/^Forges added in the dashboard keep their token encrypted: set SVC_SECRETS_KEY in the relay's environment/);
    expect(await rawForgeRows(ctx.relay)).toEqual([]);
  });
});

describeUnless(testLanSkipReason(), 'a dashboard forge on the LAN: statuses checked against GitHub\'s OpenAPI description, across restarts', () => {
  const forge = new TestForge('github', { token: TOKEN });
  let stopForge: () => Promise<void>;
  let relay: TestRelay;
  beforeAll(async () => {
    stopForge = await putForgeOnLan(forge);
  });
  afterAll(async () => {
    await relay?.close();
    await stopForge?.();
  });
  const as = (member: TestMember, method: 'get' | 'post', path: string) => relay.http()[method](path).set('Cookie', member.cookie);
  const restart = async (env: Record<string, string | undefined>) => {
    await relay.app.close();
    const next = { ...relay.env, ...env };
    for (const [name, value] of Object.entries(next)) if (value === undefined) delete next[name];
    relay = await startTestRelay(next as Record<string, string>);
  };

  it('posts the build\'s status, sends a test status, and after a restart with another key reports the forge unusable and keeps serving', async () => {
    relay = await startTestRelay({ SVC_SECRETS_KEY: KEY, SVC_RELAY_URL: 'https://relay.example.test' });
    const members = new (await import('../support/factory')).MemberFactory(relay);
    const admin = await members.admin();
    const created = (await as(admin, 'post', '/api/v1/forges').send({ type: 'github', url: forge.url, token: TOKEN, repositories: ['lan/app'] }).expect(201)).body;
    expect(created.problem).toBeNull();

    const pat = await members.pat(await members.member('Developer'), 'builds:write');
    const build = (await attachBuild(members.withPat(pat, 'post', '/api/v1/builds'), 'string-label.apk', { commit: SHA_A, repository: 'lan/app' }).expect(201)).body;
    const pending = await until('pending status on the LAN forge', () => forge.of(STATUS).find((r) => r.path === `/repos/lan/app/statuses/${SHA_A}`));
    expect(pending.body).toEqual({ state: 'pending', context: 'svc/review', description: 'No status', target_url: `https://relay.example.test/builds/${build.id}` });
    expect(pending.headers.authorization).toBe(`token ${TOKEN}`);

    const test = await as(admin, 'post', `/api/v1/forges/${created.id}/test`).send({ repository: 'lan/app', commit: SHA_A }).expect(200);
    expect(test.body).toEqual({ ok: true, status_code: 200, error: null, context: 'svc/review/test' });
    const log = await until('both attempts in the forge\'s log', async () => {
      const res = await as(admin, 'get', `/api/v1/forges/${created.id}/deliveries`).expect(200);
      return res.body.deliveries.length === 2 ? res.body.deliveries : null;
    });
    expect(log.map((d: { test: boolean; status_code: number; context: string }) => [d.test, d.status_code, d.context]).sort()).toEqual([
      [false, 200, 'svc/review'],
      [true, 200, 'svc/review/test'],
    ]);
    expect(forge.problems()).toEqual([]);

    // The same key after a restart: the sealed token opens, statuses still go out.
    await restart({});
    expect((await as(admin, 'get', '/api/v1/forges').expect(200)).body.forges[0].problem).toBeNull();
    expect((await as(admin, 'post', `/api/v1/forges/${created.id}/test`).send({ repository: 'lan/app', commit: SHA_A }).expect(200)).body.ok).toBe(true);

    // Another key: the relay serves, the forge is reported unusable and sends nothing.
    await restart({ SVC_SECRETS_KEY: randomBytes(32).toString('hex') });
    const [unusable] = (await as(admin, 'get', '/api/v1/forges').expect(200)).body.forges;
    expect(unusable).toEqual(expect.objectContaining({ id: created.id, has_token: true, problem: 'its token cannot be read: it was encrypted with another SVC_SECRETS_KEY than the one set now' }));
    expect((await as(admin, 'post', `/api/v1/forges/${created.id}/test`).send({ repository: 'lan/app', commit: SHA_A }).expect(400)).body).toEqual({
      error: `forge #${created.id} is not used: its token cannot be read: it was encrypted with another SVC_SECRETS_KEY than the one set now`,
    });
    await relay.http().get('/api/v1/health').expect(200);
    expect(relay.logger.buffer.tail(500).join('\n')).toContain(`Dashboard forge #${created.id} (github ${forge.url}) is not used: its token cannot be read: it was encrypted with another SVC_SECRETS_KEY`);
    expect(relay.logger.buffer.tail(500).join('\n')).not.toContain(TOKEN);

    // No key at all: the same, saying which variable is missing.
    await restart({ SVC_SECRETS_KEY: undefined });
    expect((await as(admin, 'get', '/api/v1/forges').expect(200)).body.forges[0].problem).toBe('its token cannot be read: SVC_SECRETS_KEY is not set, so it cannot be decrypted');
    expect(forge.problems()).toEqual([]);
  });
});

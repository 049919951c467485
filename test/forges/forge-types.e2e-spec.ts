import { generateKeyPairSync } from 'node:crypto';
import { ForgeOutboxRepository } from '../../src/forges/outbox/forge-outbox.repository';
import { attachBuild } from '../support/build-fixtures';
import type { TestMember } from '../support/factory';
import { useTestRelay } from '../support/use-relay';
import { forgeConfigPath, until, writeForgeConfig } from './support/forge-relay';
import { TestForge } from './support/forge-server';

const { privateKey, publicKey } = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  // GitHub hands out App keys as PKCS#1 PEM.
  privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
});
const gitlab = new TestForge('gitlab', { token: 'glpat-test' });
const gitea = new TestForge('gitea', { token: 'gitea-test' });
const app = new TestForge('github', { appId: '123', publicKeyPem: publicKey });

/**
 * Each forge type's status request, checked by the local forge (GitHub's OpenAPI description;
 * GitLab's and Gitea's documented shapes): GitLab's state names and URL-encoded project path,
 * Gitea's token header, the GitHub App flow (JWT → installation token → check run with a Markdown
 * summary), and the SSRF rule for a forge URL at a cloud metadata address.
 */
describe('forge types', () => {
  const config = forgeConfigPath();
  beforeAll(async () => {
    await Promise.all([gitlab.start(), gitea.start(), app.start()]);
    writeForgeConfig(config, [
      { type: 'gitlab', url: gitlab.url, tokenEnv: 'GL_TEST_TOKEN', repositories: ['group/sub/app'] },
      { type: 'gitea', url: gitea.url, tokenEnv: 'GITEA_TEST_TOKEN', repositories: ['team/app'], context: 'qa/verdict' },
      { type: 'github', url: app.url, app: { appId: 123, privateKeyEnv: 'GH_APP_KEY', installationId: 77 }, repositories: ['acme/checked'] },
      { type: 'gitea', url: 'http://169.254.169.254/api/v1', tokenEnv: 'GITEA_TEST_TOKEN', repositories: ['meta/app'] },
      { type: 'gitlab', url: gitlab.url, tokenEnv: 'UNSET_TEST_VARIABLE', repositories: ['unset/app'] },
    ]);
  });
  afterAll(() => Promise.all([gitlab.close(), gitea.close(), app.close()]));
  const ctx = useTestRelay({
    SVC_CONFIG: config,
    GL_TEST_TOKEN: 'glpat-test',
    GITEA_TEST_TOKEN: 'gitea-test',
    GH_APP_KEY: privateKey,
    SVC_RELAY_URL: 'https://relay.example.test',
  });

  let reviewer: TestMember;
  let pat: string;
  beforeAll(async () => {
    reviewer = await ctx.members.member('QA');
    pat = await ctx.members.pat(await ctx.members.member('Developer'), 'builds:write');
  });
  const upload = (fields: Record<string, string>) => attachBuild(ctx.members.withPat(pat, 'post', '/api/v1/builds'), 'string-label.apk', fields).expect(201);
  const review = (id: number, status: string) => ctx.members.as(reviewer, 'patch', `/api/v1/builds/${id}`).send({ status_label: status }).expect(200);
  const outboxRow = (sha: string, status: string) => async () =>
    (await ctx.relay.app.get(ForgeOutboxRepository).recent(100)).find((r) => r.commit === sha && r.status === status);

  it('GitLab: running, success, failed on the URL-encoded project path with PRIVATE-TOKEN', async () => {
    const sha = 'a1'.repeat(20);
    const { body } = await upload({ commit: sha, repository: 'group/sub/app' });
    await until('running', () => gitlab.requests.length === 1);
    expect(gitlab.requests[0].path).toBe(`/api/v4/projects/group%2Fsub%2Fapp/statuses/${sha}`);
    await review(body.id, 'Done');
    await until('success', () => gitlab.requests.length === 2);
    await review(body.id, 'Rejected');
    await until('failed', () => gitlab.requests.length === 3);
    expect(gitlab.requests.map((r) => (r.body as { state: string; name: string }).state)).toEqual(['running', 'success', 'failed']);
    expect(gitlab.requests[0].body).toEqual({ state: 'running', name: 'svc/review', description: 'No status', target_url: `https://relay.example.test/builds/${body.id}` });
    expect(gitlab.problems()).toEqual([]);
  });

  it('Gitea: GitHub-shaped statuses with its own context and `token` authorization', async () => {
    const sha = 'b2'.repeat(20);
    const { body } = await upload({ commit: sha, repository: 'team/app' });
    await until('pending', () => gitea.requests.length === 1);
    await review(body.id, 'Rejected');
    await until('failure', () => gitea.requests.length === 2);
    expect(gitea.requests.map((r) => [r.path, (r.body as { state: string }).state, (r.body as { context: string }).context])).toEqual([
      [`/api/v1/repos/team/app/statuses/${sha}`, 'pending', 'qa/verdict'],
      [`/api/v1/repos/team/app/statuses/${sha}`, 'failure', 'qa/verdict'],
    ]);
    expect(gitea.problems()).toEqual([]);
  });

  it('GitHub App: an installation token from a verified JWT, then check runs with a Markdown summary', async () => {
    const sha = 'c3'.repeat(20);
    const { body } = await upload({ commit: sha, repository: 'acme/checked' });
    await until('check run', () => app.of('checks/create').length === 1);
    await review(body.id, 'Done');
    await until('completed check run', () => app.of('checks/create').length === 2);
    expect(app.of('apps/create-installation-access-token').map((r) => r.path)).toEqual(['/app/installations/77/access_tokens']);
    const [first, second] = app.of('checks/create').map((r) => r.body as Record<string, unknown>);
    expect(first).toEqual(expect.objectContaining({ name: 'svc / review', head_sha: sha, status: 'in_progress', details_url: `https://relay.example.test/builds/${body.id}` }));
    expect(second).toEqual(expect.objectContaining({ status: 'completed', conclusion: 'success', output: expect.objectContaining({ title: 'Done by qa-1' }) }));
    expect((second.output as { summary: string }).summary).toContain('| ✅ Done | qa-1 |');
    // The token was made once and reused; both check runs carried it.
    expect(app.of('checks/create').map((r) => r.headers.authorization)).toEqual(['token ghs_test1', 'token ghs_test1']);
    expect(app.problems()).toEqual([]);
  });

  it('writes the merge request note (GitLab) and the pull request comment (Gitea) once, then edits it', async () => {
    const lab = (await upload({ commit: 'f6'.repeat(20), repository: 'group/sub/app', pull_request: '3' })).body.id;
    await until('note', () => gitlab.of('gitlab/create-comment').length === 1);
    expect(gitlab.of('gitlab/create-comment')[0].path).toBe('/api/v4/projects/group%2Fsub%2Fapp/merge_requests/3/notes');
    await review(lab, 'Done');
    await until('note edited', () => gitlab.of('gitlab/edit-comment').length === 1);
    expect(gitlab.of('gitlab/edit-comment')[0].path).toMatch(/^\/api\/v4\/projects\/group%2Fsub%2Fapp\/merge_requests\/3\/notes\/\d+$/);
    const tea = (await upload({ commit: 'a7'.repeat(20), repository: 'team/app', pull_request: '9' })).body.id;
    await until('comment', () => gitea.of('gitea/create-comment').length === 1);
    await review(tea, 'Rejected');
    await until('comment edited', () => gitea.of('gitea/edit-comment').length === 1);
    expect((gitea.of('gitea/edit-comment')[0].body as { body: string }).body).toContain('❌ Rejected by qa-');
    expect([...gitlab.problems(), ...gitea.problems()]).toEqual([]);
  });

  it('what changed: the commits since the app\'s last Done build from the compare API, else the changelog', async () => {
    const [c1, c2] = ['c1'.repeat(20), 'c2'.repeat(20)];
    const bare = (await upload({ repository: 'group/sub/app', changelog: 'no commit' })).body.id;
    const none = await ctx.members.withPat(pat, 'get', `/api/v1/builds/${bare}/changes`).expect(200);
    expect(none.body).toEqual({ source: 'changelog', base_build_id: null, base_commit: null, commits: [], changelog: 'no commit', problem: null });
    const first = (await upload({ commit: c1, repository: 'group/sub/app', changelog: 'first' })).body.id;
    await review(first, 'Done');
    const second = (await upload({ commit: c2, repository: 'group/sub/app', changelog: 'second' })).body.id;
    gitlab.script('gitlab/compare', {
      status: 200,
      body: { commits: [{ id: 'd'.repeat(40), title: 'Fix login', message: 'Fix login\n\nbody', author_name: 'Ann', web_url: 'https://gitlab.example/c/d' }], diffs: [] },
    });
    const changes = await ctx.members.withPat(pat, 'get', `/api/v1/builds/${second}/changes`).expect(200);
    expect(changes.body).toEqual({
      source: 'forge',
      base_build_id: first,
      base_commit: c1,
      commits: [{ sha: 'd'.repeat(40), title: 'Fix login', author: 'Ann', url: 'https://gitlab.example/c/d' }],
      changelog: 'second',
      problem: null,
    });
    expect(gitlab.of('gitlab/compare').at(-1)!.query).toEqual({ from: c1, to: c2 });
    gitlab.script('gitlab/compare', { status: 404, body: { message: '404 Commit Not Found' } });
    const refused = await ctx.members.withPat(pat, 'get', `/api/v1/builds/${second}/changes`).expect(200);
    expect(refused.body).toEqual(expect.objectContaining({ source: 'changelog', commits: [], problem: expect.stringContaining('HTTP 404') }));
    await ctx.members.withPat(pat, 'get', '/api/v1/builds/999999/changes').expect(404);
    expect(gitlab.problems()).toEqual([]);
  });

  it('never calls a forge at a cloud metadata address; a forge with an unset token is not used', async () => {
    const meta = 'd4'.repeat(20);
    await upload({ commit: meta, repository: 'meta/app' });
    const refused = await until('refused', outboxRow(meta, 'failed'));
    expect(refused.lastError).toMatch(/destination refused: 169\.254\.169\.254 is/);
    const unset = 'e5'.repeat(20);
    const before = gitlab.requests.length;
    await upload({ commit: unset, repository: 'unset/app' });
    const unused = await until('not used', outboxRow(unset, 'failed'));
    expect(unused.lastError).toBe('forge not used: the environment variable UNSET_TEST_VARIABLE (its token) is not set');
    expect(gitlab.requests.length).toBe(before);
  });
});

describe('the forges API', () => {
  const gitea = new TestForge('gitea', { token: 'gitea-test' });
  const config = forgeConfigPath();
  beforeAll(async () => {
    await gitea.start();
    writeForgeConfig(config, [
      { type: 'gitea', url: gitea.url, tokenEnv: 'GITEA_TEST_TOKEN', repositories: ['team/app'] },
      { type: 'github', url: 'https://api.github.com', tokenEnv: 'UNSET_TEST_VARIABLE', repositories: ['acme/app'] },
      { type: 'gitlab', url: 'http://ops:hunter2@127.0.0.1:9/api/v4', tokenEnv: 'UNSET_TEST_VARIABLE', repositories: ['x/y'] },
    ]);
  });
  afterAll(() => gitea.close());
  const ctx = useTestRelay({ SVC_CONFIG: config, GITEA_TEST_TOKEN: 'gitea-test' });

  it('lists the forges without credentials to every member; the delivery log and the test status are an Admin\'s', async () => {
    const viewer = await ctx.members.member('Viewer');
    const admin = await ctx.members.admin();
    const list = await ctx.members.as(viewer, 'get', '/api/v1/forges').expect(200);
    expect(list.body.forges).toEqual([
      {
        source: 'config',
        index: 0,
        id: null,
        type: 'gitea',
        api_url: gitea.url,
        web_url: gitea.url.replace(/\/api\/v1$/, ''),
        repositories: ['team/app'],
        context: 'svc/review',
        auth: 'token',
        has_token: true,
        has_private_key: false,
        app_id: null,
        installation_id: null,
        problem: null,
      },
      {
        source: 'config',
        index: 1,
        id: null,
        type: 'github',
        api_url: 'https://api.github.com',
        web_url: 'https://github.com',
        repositories: ['acme/app'],
        context: 'svc/review',
        auth: 'token',
        has_token: false,
        has_private_key: false,
        app_id: null,
        installation_id: null,
        problem: 'the environment variable UNSET_TEST_VARIABLE (its token) is not set',
      },
      expect.objectContaining({ index: 2, api_url: 'http://127.0.0.1:9/api/v4', web_url: 'http://127.0.0.1:9' }),
    ]);
    expect(JSON.stringify(list.body)).not.toMatch(/gitea-test|hunter2|ops:/);
    await ctx.members.as(viewer, 'get', '/api/v1/forges/deliveries').expect(403);
    await ctx.members.as(viewer, 'post', '/api/v1/forges/config/0/test').send({ repository: 'team/app', commit: 'a'.repeat(40) }).expect(403);

    const sha = 'ab'.repeat(20);
    const sent = await ctx.members.as(admin, 'post', '/api/v1/forges/config/0/test').send({ repository: 'team/app', commit: sha.toUpperCase() }).expect(200);
    expect(sent.body).toEqual({ ok: true, status_code: 200, error: null, context: 'svc/review/test' });
    expect(gitea.requests.at(-1)).toEqual(expect.objectContaining({ path: `/api/v1/repos/team/app/statuses/${sha}`, problems: [] }));
    gitea.script('gitea/repoCreateStatus', { status: 404, body: { message: 'repo not found' } });
    const refused = await ctx.members.as(admin, 'post', '/api/v1/forges/config/0/test').send({ repository: 'team/app', commit: sha }).expect(200);
    expect(refused.body).toEqual(expect.objectContaining({ ok: false, status_code: 404 }));
    expect((await ctx.members.as(admin, 'post', '/api/v1/forges/config/1/test').send({ repository: 'acme/app', commit: sha }).expect(400)).body).toEqual({
      error: 'svc.config.json forges[1] is not used: the environment variable UNSET_TEST_VARIABLE (its token) is not set',
    });
    expect((await ctx.members.as(admin, 'post', '/api/v1/forges/config/0/test').send({ repository: 'other/repo', commit: sha }).expect(400)).body).toEqual({
      error: 'svc.config.json forges[0] does not list other/repo',
    });
    expect((await ctx.members.as(admin, 'post', '/api/v1/forges/config/0/test').send({ repository: 'team/app', commit: 'abc' }).expect(400)).body).toEqual({
      error: 'commit must be a full commit SHA (40 or 64 hexadecimal characters)',
    });
    await ctx.members.as(admin, 'post', '/api/v1/forges/config/9/test').send({ repository: 'team/app', commit: sha }).expect(404);

    const pat = await ctx.members.pat(await ctx.members.member('Developer'), 'builds:write');
    const build = (await attachBuild(ctx.members.withPat(pat, 'post', '/api/v1/builds'), 'string-label.apk', { commit: sha, repository: 'team/app' }).expect(201)).body;
    const log = await until('delivered', async () => {
      const res = await ctx.members.as(admin, 'get', '/api/v1/forges/deliveries').expect(200);
      // The test statuses above are in the log too (build_id null), delivered or failed at once.
      return res.body.deliveries.find((d: { status: string; build_id: number }) => d.build_id === build.id && d.status === 'delivered') ? res.body.deliveries : null;
    });
    expect(log[0]).toEqual(
      expect.objectContaining({ repository: 'team/app', commit: sha, context: 'svc/review', build_id: build.id, state: 'pending', status: 'delivered', attempts: [expect.objectContaining({ status_code: 200, error: null })] }),
    );
    // The forge's own delivery log: every attempt it made, the test statuses included, newest first.
    const own = (await ctx.members.as(admin, 'get', '/api/v1/forges/config/0/deliveries').expect(200)).body.deliveries;
    expect(own.map((d: { test: boolean; status_code: number; context: string }) => [d.test, d.status_code, d.context])).toEqual([
      [false, 200, 'svc/review'],
      [true, 404, 'svc/review/test'],
      [true, 200, 'svc/review/test'],
    ]);
    expect((await ctx.members.as(admin, 'get', '/api/v1/forges/config/1/deliveries').expect(200)).body.deliveries).toEqual([]);
    await ctx.members.as(viewer, 'get', '/api/v1/forges/config/0/deliveries').expect(403);
  });
});

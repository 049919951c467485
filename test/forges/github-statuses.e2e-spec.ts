import { ForgeOutboxRepository } from '../../src/forges/outbox/forge-outbox.repository';
import { ForgePullRequestRepository } from '../../src/forges/pull-requests/pull-request.repository';
import { BASE_BACKOFF_MS } from '../../src/outbox/retry-policy';
import { readFileSync } from 'node:fs';
import { attachBuild } from '../support/build-fixtures';
import { npmApk } from '../builds/contents-tools';
import type { TestMember } from '../support/factory';
import { SHA_A, SHA_B, SHA_C, until, useGitHubForgeRelay } from './support/forge-relay';
import { TestForge } from './support/forge-server';

const TOKEN = 'ghp_test_token';
const STATUS = 'repos/create-commit-status';
const forge = new TestForge('github', { token: TOKEN });

/**
 * Verdicts as GitHub commit statuses (issue 25, docs/integrations.md "Forges"), against a local
 * GitHub that checks every request with GitHub's published OpenAPI description: pending at upload,
 * success on Done, failure on Rejected (who decided, the newest comment's first line), pending
 * again; per-platform contexts for a commit with builds of both platforms; retries on 5xx and 429
 * with Retry-After; a late pending never overwrites a newer success.
 */
describe('GitHub commit statuses', () => {
  const ctx = useGitHubForgeRelay(forge, TOKEN);

  let reviewer: TestMember;
  let pat: string;
  beforeAll(async () => {
    reviewer = await ctx.members.member('QA');
    pat = await ctx.members.pat(await ctx.members.member('Developer'), 'builds:write');
  });

  const statusesFor = (sha: string, context = 'svc/review') =>
    forge.of(STATUS).filter((r) => r.path.endsWith(`/statuses/${sha}`) && (r.body as { context: string }).context === context);
  const lastStatus = (sha: string, context?: string) => statusesFor(sha, context).at(-1)?.body as { state: string; description: string; target_url?: string } | undefined;
  const upload = (fields: Record<string, string>, file = 'string-label.apk') =>
    attachBuild(ctx.members.withPat(pat, 'post', '/api/v1/builds'), file, fields).expect(201);
  const review = (id: number, status: string | null) => ctx.members.as(reviewer, 'patch', `/api/v1/builds/${id}`).send({ status_label: status }).expect(200);

  it('posts pending at upload, success on Done, failure on Rejected with the newest comment, pending again', async () => {
    const { body } = await upload({ commit: SHA_A, repository: 'acme/app', branch: 'feature/x', pull_request: '5' });
    const pending = await until('pending status', () => lastStatus(SHA_A));
    expect(pending).toEqual({
      state: 'pending',
      context: 'svc/review',
      description: 'No status',
      target_url: `https://relay.example.test/builds/${body.id}`,
    });
    const request = statusesFor(SHA_A)[0];
    expect(request.path).toBe(`/repos/acme/app/statuses/${SHA_A}`);
    expect(request.headers.authorization).toBe(`token ${TOKEN}`);

    await review(body.id, 'Done');
    await until('success', () => lastStatus(SHA_A)?.state === 'success');
    expect(lastStatus(SHA_A)!.description).toBe('Done by qa-1');

    await ctx.members.as(reviewer, 'post', '/api/v1/comments').field('build_id', String(body.id)).field('body', '\n  Crashes on login\nsteps: tap twice').expect(201);
    await until('comment in the description', () => lastStatus(SHA_A)?.description === 'Done by qa-1: Crashes on login');
    await review(body.id, 'Rejected');
    await until('failure', () => lastStatus(SHA_A)?.state === 'failure');
    expect(lastStatus(SHA_A)!.description).toBe('Rejected by qa-1: Crashes on login');
    await review(body.id, 'In Progress');
    await until('pending again', () => lastStatus(SHA_A)?.state === 'pending');
    expect(lastStatus(SHA_A)!.description).toBe('In Progress');
    expect(forge.problems()).toEqual([]);
  });

  it('posts nothing for a build without commit, or of a repository no forge lists', async () => {
    const before = forge.requests.length;
    await upload({ repository: 'acme/app' });
    await upload({ commit: SHA_C, repository: 'other/repo' });
    const last = await upload({ commit: SHA_C, repository: 'acme/app' });
    await until('the listed one', () => lastStatus(SHA_C));
    // Statuses only: the first test's pull-request comment may still be being edited.
    expect(forge.requests.slice(before).filter((r) => r.operation === STATUS).map((r) => r.path)).toEqual([`/repos/acme/app/statuses/${SHA_C}`]);
    expect(last.body.id).toBeGreaterThan(0);
  });

  it('gives each platform its own context when a commit has builds of both, and the plain one sums them up', async () => {
    const android = (await upload({ commit: SHA_B, repository: 'acme/app' })).body.id;
    await until('android pending', () => lastStatus(SHA_B));
    const ios = (await upload({ commit: SHA_B, repository: 'acme/app' }, 'xml-root.app.zip')).body.id;
    await until('ios context', () => lastStatus(SHA_B, 'svc/review (ios)'));
    await until('android context', () => lastStatus(SHA_B, 'svc/review (android)'));
    await review(android, 'Done');
    await until('android success', () => lastStatus(SHA_B, 'svc/review (android)')?.state === 'success');
    expect(lastStatus(SHA_B)).toEqual(expect.objectContaining({ state: 'pending', description: 'android: Done; ios: No status' }));
    await review(ios, 'Done');
    await until('all success', () => lastStatus(SHA_B)?.state === 'success');
    await review(ios, 'Rejected');
    await until('any rejected', () => lastStatus(SHA_B)?.state === 'failure');
    expect(lastStatus(SHA_B)!.target_url).toBe(`https://relay.example.test/builds/${ios}`);
    expect(forge.problems()).toEqual([]);
  });

  it('retries 5xx and 429 (after Retry-After), and a late pending never overwrites a newer success', async () => {
    const sha = '4'.repeat(40);
    // Scripted for this commit's path only: a status of an earlier test still on its way takes none.
    forge.script(STATUS, { status: 503, body: { message: 'unavailable' }, forPath: sha });
    const { body } = await upload({ commit: sha, repository: 'acme/app' });
    await until('first attempt refused', () => statusesFor(sha).length === 1);
    // The pending waits 10 s (backoff) on the relay's clock; the verdict does not wait for it.
    forge.script(STATUS, { status: 429, headers: { 'retry-after': '30' }, body: { message: 'slow down' }, forPath: sha });
    await review(body.id, 'Done');
    await until('success attempted', () => statusesFor(sha).length === 2);
    expect((statusesFor(sha)[1].body as { state: string }).state).toBe('success');
    ctx.relay.clock.advance(15_000);
    // The pending's retry time has passed, but it was overtaken: it is never sent again.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(statusesFor(sha)).toHaveLength(2);
    ctx.relay.clock.advance(20_000);
    await until('success after Retry-After', () => statusesFor(sha).length === 3);
    expect(statusesFor(sha).map((r) => (r.body as { state: string }).state)).toEqual(['pending', 'success', 'success']);
    // The local forge records a request when it arrives; the relay marks its row once the answer is back.
    const rows = await until('success marked delivered', async () => {
      const mine = (await ctx.relay.app.get(ForgeOutboxRepository).recent(50)).filter((r) => r.commit === sha);
      return mine.some((r) => r.status === 'delivered') ? mine : undefined;
    });
    expect(rows.map((r) => [r.state, r.status, r.attempts])).toEqual([
      ['success', 'delivered', 2],
      ['pending', 'superseded', 1],
    ]);
    expect(forge.problems()).toEqual([]);
  });

  it('gives up on a refusal that no retry can mend (422), logging it', async () => {
    const sha = '5'.repeat(40);
    forge.script(STATUS, { status: 422, body: { message: 'No commit found for SHA' } });
    await upload({ commit: sha, repository: 'acme/app' });
    await until('refused', () => statusesFor(sha).length === 1);
    const row = await until('failed row', async () => (await ctx.relay.app.get(ForgeOutboxRepository).recent(50)).find((r) => r.commit === sha && r.status === 'failed'));
    expect(row.lastError).toContain('HTTP 422');
  });

  it('the local GitHub flags what its OpenAPI description does not allow (its check can fail)', async () => {
    const res = await fetch(`${forge.url}/repos/acme/app/statuses/${SHA_A}`, {
      method: 'POST',
      headers: { authorization: `token ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ state: 'approved', context: 7 }),
    });
    expect(res.status).toBe(201);
    const flagged = forge.requests.pop()!;
    expect(flagged.problems.join(' ')).toMatch(/allowed values.*must be string|must be string.*allowed values/);
    await fetch(`${forge.url}/repos/acme/app/pulls/1/merge`, { method: 'PUT' });
    expect(forge.requests.pop()!.problems).toEqual(['no such operation in the API description']);
  });
});

describe('the pull request comment on GitHub', () => {
  const gh = new TestForge('github', { token: TOKEN });
  const ctx = useGitHubForgeRelay(gh, TOKEN);

  it('is created once, then edited in place, listing every build of the pull request with an install link and its changelog', async () => {
    const pat = await ctx.members.pat(await ctx.members.member('Developer'), 'builds:write');
    const reviewer = await ctx.members.member('QA');
    const upload = (file: string, fields: Record<string, string>) => attachBuild(ctx.members.withPat(pat, 'post', '/api/v1/builds'), file, fields).expect(201);
    const android = (await upload('string-label.apk', { commit: SHA_A, repository: 'acme/app', pull_request: '12', changelog: 'Try <b>login</b>\nand logout' })).body.id;
    await until('comment created', () => gh.of('issues/create-comment').length === 1);
    expect(gh.of('issues/create-comment')[0].path).toBe('/repos/acme/app/issues/12/comments');
    const ios = (await upload('xml-root.app.zip', { commit: SHA_A, repository: 'acme/app', pull_request: '12' })).body.id;
    await until('comment edited', () => gh.of('issues/update-comment').some((r) => (r.body as { body: string }).body.includes(`#${ios}`)));
    await ctx.members.as(reviewer, 'patch', `/api/v1/builds/${android}`).send({ status_label: 'Done' }).expect(200);
    await until(
      'verdict in the comment',
      () => (gh.of('issues/update-comment').at(-1)?.body as { body: string } | undefined)?.body.includes(`✅ Done by qa-${reviewer.email.match(/qa-(\d+)/)![1]}`),
      undefined,
      () => gh.requests.map((r) => [r.path, r.body]),
    );

    expect(gh.of('issues/create-comment')).toHaveLength(1);
    const edits = gh.of('issues/update-comment');
    // Every edit goes to the one comment the forge created (its id, from the create's answer).
    expect(new Set(edits.map((r) => r.path)).size).toBe(1);
    expect(edits[0].path).toMatch(/^\/repos\/acme\/app\/issues\/comments\/\d+$/);
    const body = (edits.at(-1)!.body as { body: string }).body;
    const installs = [...body.matchAll(/\[Install\]\((https:\/\/relay\.example\.test\/install\/[0-9a-f]{64})\)/g)].map((m) => m[1]);
    expect(installs).toHaveLength(2);
    // The links are made once: every edit shows the same ones.
    for (const edit of edits) for (const url of [...(edit.body as { body: string }).body.matchAll(/\[Install\]\(([^)]+)\)/g)].map((m) => m[1])) expect(installs).toContain(url);
    expect(body).toContain(`[#${android}](https://relay.example.test/builds/${android})`);
    expect(body).toContain('```\nTry <b>login</b>\nand logout\n```');
    // The install link opens the build's page without an account.
    const page = await ctx.relay.http().get(new URL(installs[0]).pathname).expect(200);
    expect(page.text).toContain('html');
    expect(gh.problems()).toEqual([]);
  });

  it('lists what changed since the app\'s last Done build under each build', async () => {
    const pat = await ctx.members.pat(await ctx.members.member('Developer'), 'builds:write');
    gh.script('repos/compare-commits-with-basehead', {
      status: 200,
      body: { commits: [{ sha: 'f'.repeat(40), html_url: 'https://github.example/c/f', commit: { message: 'Fix *the* crash\n\nmore' } }] },
    });
    const next = (await attachBuild(ctx.members.withPat(pat, 'post', '/api/v1/builds'), 'string-label.apk', { commit: SHA_C, repository: 'acme/app', pull_request: '12' }).expect(201)).body.id;
    const body = await until('what changed in the comment', () =>
      gh.of('issues/update-comment').map((r) => (r.body as { body: string }).body).find((b) => b.includes(`(android, #${next})`) && b.includes('What changed since #')),
    );
    expect(body).toContain('- [`fffffff`](https://github.example/c/f) Fix \\*the\\* crash');
    expect(gh.of('repos/compare-commits-with-basehead').at(-1)!.path).toBe(`/repos/acme/app/compare/${SHA_A}...${SHA_C}`);
    expect(gh.problems()).toEqual([]);
  });

  it('finds its comment by its marker when it never kept the id (a crash after the forge created it): no second comment', async () => {
    const pat = await ctx.members.pat(await ctx.members.member('Developer'), 'builds:write');
    const creates = gh.of('issues/create-comment').length;
    gh.script('issues/list-comments', { status: 200, body: [{ id: 5, body: 'LGTM' }, { id: 777, body: '<!-- svc-relay:pull-request-builds -->\nold' }] });
    await attachBuild(ctx.members.withPat(pat, 'post', '/api/v1/builds'), 'string-label.apk', { commit: SHA_B, repository: 'acme/app', pull_request: '13' }).expect(201);
    await until('the old comment edited', () => gh.of('issues/update-comment').some((r) => r.path === '/repos/acme/app/issues/comments/777'));
    expect(gh.of('issues/list-comments').at(-1)!.path).toBe('/repos/acme/app/issues/13/comments');
    expect(gh.of('issues/create-comment')).toHaveLength(creates);
    expect(gh.problems()).toEqual([]);
  });

  // Issue 28 item 3: with the forge issue present, the flags of a build's comparison reach the pull request.
  it('shows the flags of a build\'s comparison in its status description and in the comment, with their reasons', async () => {
    const pat = await ctx.members.pat(await ctx.members.member('Developer'), 'builds:write');
    const upload = (alias: string, fields: Record<string, string>) =>
      ctx.members.withPat(pat, 'post', '/api/v1/builds').field('commit', fields.commit).field('repository', 'acme/app').field('pull_request', '21')
        .attach('file', readFileSync(npmApk(alias, 'ApiDemos-debug.apk')), 'ApiDemos-debug.apk').expect(201);
    await upload('apidemos-4', { commit: 'a'.repeat(40) });
    const next = (await upload('apidemos-5', { commit: 'b'.repeat(40) })).body.id as number;
    const status = await until('flagged description', () =>
      gh.of('repos/create-commit-status').map((r) => r.body as { description: string }).find((b) => b.description.includes('⚑')),
    );
    expect(status.description).toMatch(/^No status · ⚑ 4: /);
    expect(status.description.length).toBeLessThanOrEqual(140);
    const body = await until('flags in the comment', () =>
      gh.of('issues/update-comment').map((r) => (r.body as { body: string }).body).find((b) => b.includes('⚑ Flags of API Demos (android):')),
      // Room for one retry at the outbox's first backoff: CI timed the plain 10 s out once under load.
      BASE_BACKOFF_MS + 10_000,
      // What the relay's queue holds for the pull request, and what the forge saw: a timeout alone says nothing.
      async () => ({ row: await ctx.relay.app.get(ForgePullRequestRepository).find('acme/app', 21), requests: gh.requests.map((r) => [r.operation, r.path, r.body]) }),
    );
    expect(body).toMatch(new RegExp(`\\| ⚑ 4 \\| \\[#${next}\\]`));
    expect(body).toContain('- Signing certificate changed');
    expect(gh.problems()).toEqual([]);
  }, 60_000);
});

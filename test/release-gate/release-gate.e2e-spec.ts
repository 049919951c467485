import { writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { DataSource } from 'typeorm';
import { attachBuild } from '../support/build-fixtures';
import type { TestMember } from '../support/factory';
import { useTestRelay } from '../support/use-relay';
import { forgeConfigPath, SHA_A, SHA_B, SHA_C, until } from '../forges/support/forge-relay';
import { TestForge } from '../forges/support/forge-server';
import { LoopbackListener } from '../webhooks/support/loopback-listener';
import { signatureVerifies } from '../webhooks/support/webhook-helpers';

const TOKEN = 'ghp_gate_token';
const STATUS = 'repos/create-commit-status';
const GATE = 'svc/release-gate';
const forge = new TestForge('github', { token: TOKEN });
const SHA_D = '4'.repeat(40);

/** svc.config.json's team default: two QA approvals, four-eyes, Done refused while the gate is not met. */
const DEFAULT_POLICY = { approvals: { QA: 2 }, excludeUploader: true, blockDone: true };

/**
 * The release gate (issue 38, docs/release-gate.md) through HTTP, against a local GitHub that checks
 * every request with GitHub's published OpenAPI description: reviews, `svc/release-gate` failing
 * with the missing approval named and turning green on the second one, a new listed permission
 * needing the named role, a byte-identical rebuild keeping its approvals, Done refused while red.
 */
describe('release gate', () => {
  const config = forgeConfigPath();
  let hooks: LoopbackListener;
  beforeAll(async () => {
    await forge.start();
    hooks = await LoopbackListener.start();
    writeFileSync(
      config,
      JSON.stringify({
        forges: [{ type: 'github', url: forge.url, tokenEnv: 'GH_GATE_TOKEN', repositories: ['acme/app'] }],
        webhooks: [{ url: `http://127.0.0.1:${hooks.port}/gate`, secretEnv: 'GATE_HOOK_SECRET' }],
        releaseGate: { default: DEFAULT_POLICY },
      }),
    );
  });
  afterAll(async () => {
    await forge.close();
    await hooks.close();
  });
  afterEach(() => {
    if (process.env.GATE_DEBUG) console.log(ctx.relay.logger.buffer.tail(60).filter((l) => /"level":"(error|warn)"/.test(l)).join('\n'));
  });
  const ctx = useTestRelay({ SVC_CONFIG: config, GH_GATE_TOKEN: TOKEN, GATE_HOOK_SECRET: 'gate-hook-secret', SVC_RELAY_URL: 'https://relay.example.test' });

  let admin: TestMember;
  let qa1: TestMember;
  let qa2: TestMember;
  let viewer: TestMember;
  let developer: TestMember;
  let pat: string;
  beforeAll(async () => {
    admin = await ctx.members.admin();
    qa1 = await ctx.members.member('QA');
    qa2 = await ctx.members.member('QA');
    viewer = await ctx.members.member('Viewer');
    developer = await ctx.members.member('Developer');
    pat = await ctx.members.pat(developer, 'view,builds:write');
  });

  const gateStatuses = (sha: string) =>
    forge.of(STATUS).filter((r) => r.path.endsWith(`/statuses/${sha}`) && (r.body as { context: string }).context === GATE).map((r) => r.body as { state: string; description: string; target_url?: string });
  const lastGate = (sha: string) => gateStatuses(sha).at(-1);
  const upload = async (fields: Record<string, string>, file = 'string-label.apk') => {
    const res = await attachBuild(ctx.members.withPat(pat, 'post', '/api/v1/builds'), file, fields, basename(file));
    expect([res.status, res.body.error]).toEqual([201, undefined]);
    return res.body.id as number;
  };
  const review = (member: TestMember, id: number, verdict: string, comment?: string) =>
    ctx.members.as(member, 'post', `/api/v1/builds/${id}/reviews`).send({ verdict, comment });
  const gate = async (id: number) => (await ctx.members.as(qa1, 'get', `/api/v1/builds/${id}/gate`).expect(200)).body;
  /** The newest `svc/release-gate` the relay queued for the commit (forge_status_outbox), sent or not. */
  const queuedGate = async (sha: string) => {
    const db = ctx.relay.app.get(DataSource);
    const [a, b] = db.options.type === 'postgres' ? ['$1', '$2'] : ['?', '?'];
    const rows: { state: string }[] = await db.query(`SELECT state FROM forge_status_outbox WHERE commit_sha = ${a} AND context = ${b} ORDER BY id DESC LIMIT 1`, [sha, GATE]);
    return rows[0]?.state;
  };

  it('fails with the missing approval named, refuses Done while red, and turns green on the second QA approval', async () => {
    const id = await upload({ commit: SHA_A, repository: 'acme/app', pull_request: '7' });
    await until('the gate failing', () => lastGate(SHA_A)?.state === 'failure');
    expect(lastGate(SHA_A)).toEqual({
      state: 'failure',
      context: GATE,
      description: 'Release gate failed: needs 2 more QA approvals (0 of 2)',
      target_url: `https://relay.example.test/builds/${id}`,
    });

    expect((await review(qa1, id, 'approve', 'works on my Pixel').expect(201)).body).toMatchObject({ build_id: id, reviewer: 'qa-1', role: 'QA', verdict: 'approve', comment: 'works on my Pixel', carried_from_build_id: null });
    await until('one approval counted', () => lastGate(SHA_A)?.description === 'Release gate failed: needs 1 more QA approval (1 of 2: qa-1)');
    expect(lastGate(SHA_A)!.state).toBe('failure');

    // blockDone: Done is refused with a sentence; Rejected stays possible; the status label is untouched by the gate.
    const refused = await ctx.members.as(qa1, 'patch', `/api/v1/builds/${id}`).send({ status_label: 'Done' }).expect(409);
    expect(refused.body.error).toBe(`Build ${id} cannot be marked Done while its release gate is failed (needs 1 more QA approval (1 of 2: qa-1)); Rejected is still possible`);
    expect((await ctx.members.as(qa1, 'get', `/api/v1/builds/${id}`).expect(200)).body.status_label).toBeNull();
    await ctx.members.as(qa1, 'patch', `/api/v1/builds/${id}`).send({ status_label: 'Rejected' }).expect(200);
    await ctx.members.as(qa1, 'patch', `/api/v1/builds/${id}`).send({ status_label: 'In Progress' }).expect(200);

    await review(qa2, id, 'approve').expect(201);
    // "Within 10 seconds" as an order, not a stopwatch: the green status is queued before the
    // approval's answer, and the relay sends it with no further event (a generous poll).
    expect(await queuedGate(SHA_A)).toBe('success');
    await until('the gate green', () => lastGate(SHA_A)?.state === 'success', 60_000);
    expect(lastGate(SHA_A)!.description).toBe('Release gate passed: 2 of 2 rules met');
    const checklist = await gate(id);
    expect(checklist).toMatchObject({ build_id: id, state: 'passed', policy: { scope: 'default', source: 'file', block_done: true } });
    expect(checklist.checks).toEqual([
      { key: 'approvals.QA', label: '2 QA approvals', outcome: 'met', detail: '2 of 2: qa-1, qa-2', evidence: `https://relay.example.test/builds/${id}#release-gate` },
      { key: 'no_request_changes', label: 'No outstanding request for changes', outcome: 'met', detail: 'none', evidence: `https://relay.example.test/builds/${id}#release-gate` },
    ]);
    expect((await ctx.members.as(qa1, 'get', `/api/v1/builds/${id}`).expect(200)).body.status_label).toBe('In Progress');
    // The webhook event beyond the spec, signed like build.status_changed.
    const hit = await until('build.gate_changed delivered', () =>
      hooks.hits.find((h) => h.headers['x-svc-event'] === 'build.gate_changed' && JSON.parse(h.body.toString()).gate.to === 'passed'),
    );
    expect(JSON.parse(hit.body.toString())).toEqual({
      event: 'build.gate_changed',
      build: { id: String(id) },
      gate: { from: 'failed', to: 'passed', description: 'Release gate passed: 2 of 2 rules met' },
      changedAt: expect.any(String),
    });
    expect(signatureVerifies('gate-hook-secret', hit.body, hit.headers['x-svc-signature'] as string)).toBe(true);
    await ctx.members.as(qa1, 'patch', `/api/v1/builds/${id}`).send({ status_label: 'Done' }).expect(200);

    // A request for changes fails it again, naming who; the same member's approval replaces it (latest wins).
    await review(qa2, id, 'request_changes', 'crashes on rotate\nsteps: …').expect(201);
    await until('changes requested', () => lastGate(SHA_A)?.state === 'failure');
    expect(lastGate(SHA_A)!.description).toBe('Release gate failed: needs 1 more QA approval (1 of 2: qa-1); changes requested by qa-2: crashes on rotate');
    await review(qa2, id, 'approve').expect(201);
    await until('green again', () => lastGate(SHA_A)?.state === 'success');
    const { body } = await ctx.members.as(viewer, 'get', `/api/v1/builds/${id}/reviews`).expect(200);
    expect(body.reviews.map((r: { reviewer: string; verdict: string }) => [r.reviewer, r.verdict])).toEqual([
      ['qa-1', 'approve'],
      ['qa-2', 'approve'],
    ]);
    expect(forge.problems()).toEqual([]);
  });

  it('refuses Viewers and tokens with clear errors, and validates the body', async () => {
    // Another app: a rebuild of the first test's file would carry its reviews.
    const id = await upload({ commit: SHA_D, repository: 'acme/app' }, 'xml-root.app.zip');
    expect((await review(viewer, id, 'approve').expect(403)).body.error).toBe('Viewers cannot review builds: a review needs the Admin, Developer or QA role');
    const refused = await ctx.members.withPat(pat, 'post', `/api/v1/builds/${id}/reviews`).send({ verdict: 'approve' }).expect(403);
    expect(refused.body.error).toBe('A token cannot review a build: reviews are made by a signed-in member, never by CI or another token');
    expect((await review(qa1, id, 'lgtm').expect(400)).body.error).toBe('verdict must be one of: approve, request_changes');
    await review(qa1, 999_999, 'approve').expect(404);
    expect((await ctx.members.withPat(pat, 'get', `/api/v1/builds/${id}/reviews`).expect(200)).body.reviews).toEqual([]);
  });

  it('the uploader\'s own approval does not count (four-eyes)', async () => {
    const qaPat = await ctx.members.pat(qa1, 'view,builds:write');
    const id = (await attachBuild(ctx.members.withPat(qaPat, 'post', '/api/v1/builds'), 'literal-label.apk', {}).expect(201)).body.id as number;
    await review(qa1, id, 'approve').expect(201);
    await review(qa2, id, 'approve').expect(201);
    const checklist = await gate(id);
    expect(checklist.state).toBe('failed');
    expect(checklist.checks[0].detail).toBe("needs 1 more QA approval (1 of 2: qa-2); the uploader's own approval does not count");
  });

  it('a byte-identical rebuild keeps its approvals, marked carried; a new commit moves the check to its build', async () => {
    const first = await upload({ commit: SHA_B, repository: 'acme/app', pull_request: '8' }, 'literal-label.apk');
    await review(qa1, first, 'approve').expect(201);
    await review(qa2, first, 'approve').expect(201);
    await until('first green', () => lastGate(SHA_B)?.state === 'success');

    const rebuild = await upload({ commit: SHA_C, repository: 'acme/app', pull_request: '8' }, 'literal-label.apk');
    await until('the rebuild green', () => lastGate(SHA_C)?.state === 'success');
    const { body } = await ctx.members.as(qa1, 'get', `/api/v1/builds/${rebuild}/reviews`).expect(200);
    expect(body.reviews.map((r: { reviewer: string; carried_from_build_id: number; carried_reason: string }) => [r.reviewer, r.carried_from_build_id, r.carried_reason])).toEqual([
      ['qa-1', first, `byte-identical to build #${first} (same SHA-256)`],
      ['qa-2', first, `byte-identical to build #${first} (same SHA-256)`],
    ]);
    expect((await gate(rebuild)).checks[0].detail).toBe(`2 of 2: qa-1 (carried from build #${first}), qa-2 (carried from build #${first})`);
  });

  describe('a policy of its own for an app (dashboard)', () => {
    const SHOP_1 = 'contents/shop-1.apk';
    const SHOP_2 = 'contents/shop-2.apk';
    const SHA_E = '5'.repeat(40);

    it('validates on save with errors naming the rule; the file\'s default is read-only', async () => {
      const first = await upload({}, SHOP_1);
      const appId = (await ctx.members.as(admin, 'get', `/api/v1/builds/${first}`).expect(200)).body.app_id as number;
      const bad = await ctx.members
        .as(admin, 'put', `/api/v1/release-gate/policies/apps/${appId}`)
        .send({ policy: { approvals: { QA: 1 }, rules: [{ when: 'signing_changed', then: 'block' }, { when: 'new_permission', permissions: [], then: 'block' }] } })
        .expect(400);
      expect(bad.body.error).toBe('Invalid release gate policy: rules[1] (new_permission).permissions: must be a non-empty array of permission names, e.g. ["android.permission.CAMERA"]');
      const noRole = await ctx.members
        .as(admin, 'put', `/api/v1/release-gate/policies/apps/${appId}`)
        .send({ policy: { rules: [{ when: 'min_sdk_raised', then: 'require_approval', role: 'Viewer' }] } })
        .expect(400);
      expect(noRole.body.error).toBe('Invalid release gate policy: rules[0] (min_sdk_raised).role: must name the role whose approval it needs (Admin, Developer, QA)');
      const fromFile = await ctx.members.as(admin, 'put', '/api/v1/release-gate/policies/default').send({ policy: { approvals: { QA: 1 } } }).expect(409);
      expect(fromFile.body.error).toBe('The team default is set in svc.config.json (releaseGate.default): change it there');
      await ctx.members.as(qa1, 'put', `/api/v1/release-gate/policies/apps/${appId}`).send({ policy: { approvals: { QA: 1 } } }).expect(403);

      await ctx.members
        .as(admin, 'put', `/api/v1/release-gate/policies/apps/${appId}`)
        .send({ policy: { approvals: { QA: 1 }, rules: [{ when: 'new_permission', permissions: ['android.permission.CAMERA'], then: 'require_approval', role: 'Admin' }] } })
        .expect(200);
      const list = (await ctx.members.as(viewer, 'get', '/api/v1/release-gate/policies').expect(200)).body;
      expect(list.default).toMatchObject({ source: 'file', policy: { approvals: { QA: 2 }, excludeUploader: true, blockDone: true } });
      expect(list.apps).toEqual([expect.objectContaining({ app_id: appId, source: 'dashboard' })]);
    });

    it('a new listed permission keeps it red until the named role approves', async () => {
      const id = await upload({ commit: SHA_E, repository: 'acme/app', pull_request: '9' }, SHOP_2);
      await until('red on the permission', () => lastGate(SHA_E)?.state === 'failure');
      // Its own policy does not block Done (the file's default would): Done is taken while red, and the gate stays red.
      await ctx.members.as(qa1, 'patch', `/api/v1/builds/${id}`).send({ status_label: 'Done' }).expect(200);
      expect((await gate(id)).state).toBe('failed');
      await review(qa1, id, 'approve').expect(201);
      await until('still red, the Admin named', () => /new permission android\.permission\.CAMERA since build #\d+: needs an approval by Admin$/.test(lastGate(SHA_E)?.description ?? ''));
      expect(lastGate(SHA_E)!.state).toBe('failure');
      await review(admin, id, 'approve').expect(201);
      await until('green once the Admin approved', () => lastGate(SHA_E)?.state === 'success');
      const checks = (await gate(id)).checks;
      expect(checks.map((c: { key: string; outcome: string }) => [c.key, c.outcome])).toEqual([
        ['approvals.QA', 'met'],
        ['no_request_changes', 'met'],
        ['rules[0].new_permission', 'met'],
      ]);
      expect(checks[2].evidence).toBe(`https://relay.example.test/builds/${id}#compare`);
      expect(forge.problems()).toEqual([]);
    });
  });
});

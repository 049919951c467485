import { TestersRepository } from '../../src/testers/testers.repository';
import { WebhooksRepository } from '../../src/webhooks/webhooks.repository';
import { until } from '../forges/support/forge-relay';
import { attachBuild } from '../support/build-fixtures';
import { describeUnless } from '../support/describe-unless';
import { PG_ADMIN_URL, REDIS_URL, unreachable } from '../support/reachable';
import { useTwoInstances } from './cluster-env';

/**
 * Issue 42: the small tables read after every upload and verdict (gate policies, chat destinations,
 * which apps have testers, the enabled webhooks) are read once and kept until they change (src/common/read-cache.ts). A
 * change made through A reaches B on the cluster bus: B uses it at once, not when its copy expires
 * (a minute). Each case first makes B read and keep the table, then changes it through A.
 */
describeUnless(unreachable([PG_ADMIN_URL, REDIS_URL]), 'tables read once, on two instances (PostgreSQL + Redis)', () => {
  /** Far below the minute a kept read stands without a change announced. */
  const AT_ONCE_MS = 5_000;
  const ctx = useTwoInstances();

  it('a team policy saved on A: B refuses a Done the policy blocks', async () => {
    const qa = await ctx.onA.member('QA');
    const first = (await attachBuild(ctx.onB.as(ctx.admin, 'post', '/api/v1/builds'), 'string-label.apk').expect(201)).body.id as number;
    // B has read that no policy exists: its Done passes.
    await ctx.onB.as(qa, 'patch', `/api/v1/builds/${first}`).send({ status_label: 'Done' }).expect(200);
    expect((await ctx.onB.as(ctx.admin, 'get', '/api/v1/release-gate/policies').expect(200)).body.default).toBeNull();

    await ctx.onA.as(ctx.admin, 'put', '/api/v1/release-gate/policies/default').send({ policy: { approvals: { QA: 1 }, blockDone: true } }).expect(200);
    const second = (await attachBuild(ctx.onB.as(ctx.admin, 'post', '/api/v1/builds'), 'literal-label.apk').expect(201)).body.id as number;
    const refused = await until('B refusing the Done', async () => {
      const res = await ctx.onB.as(qa, 'patch', `/api/v1/builds/${second}`).send({ status_label: 'Done' });
      return res.status === 409 ? res : null;
    }, AT_ONCE_MS);
    expect(refused.body.error).toMatch(/cannot be marked Done while its release gate is failed/);
    expect((await ctx.onB.as(ctx.admin, 'get', '/api/v1/release-gate/policies').expect(200)).body.default).toMatchObject({ source: 'dashboard', policy: { blockDone: true } });

    await ctx.onA.as(ctx.admin, 'put', '/api/v1/release-gate/policies/default').send({ policy: null }).expect(200);
    await until('B taking the Done again', async () => (await ctx.onB.as(qa, 'patch', `/api/v1/builds/${second}`).send({ status_label: 'Done' })).status === 200, AT_ONCE_MS);
  });

  it('a chat destination added on A is listed and used by B', async () => {
    const listed = async () => (await ctx.onB.as(ctx.admin, 'get', '/api/v1/integrations/chat').expect(200)).body.routes as { id: number; name: string | null; channel: string | null }[];
    const before = await listed();
    const { body: route } = await ctx.onA.as(ctx.admin, 'post', '/api/v1/integrations/chat/routes').send({ kind: 'slack', channel: 'C0CACHE01', apps: ['*'] }).expect(201);
    await until('B listing it', async () => ((await listed()).some((r) => r.id === route.id) ? true : null), AT_ONCE_MS);
    await ctx.onA.as(ctx.admin, 'delete', `/api/v1/integrations/chat/routes/${route.id}`).expect(204);
    await until('B forgetting it', async () => ((await listed()).length === before.length ? true : null), AT_ONCE_MS);
  });

  it('a tester added on A: B knows the app has testers; removed: it has none', async () => {
    const dev = await ctx.onA.member('Developer');
    const { body: build } = await attachBuild(ctx.onB.as(dev, 'post', '/api/v1/builds'), 'string-label.apk').expect(201);
    const appId = build.app_id as number;
    const onBRepository = ctx.b.app.get(TestersRepository);
    expect(await onBRepository.hasTesters(appId)).toBe(false);
    const { body: tester } = await ctx.onA.as(dev, 'post', `/api/v1/apps/${appId}/testers`).send({ email: 'cache@example.com' }).expect(201);
    await until('B seeing the tester', async () => (await onBRepository.hasTesters(appId)) || null, AT_ONCE_MS);
    await ctx.onA.as(dev, 'delete', `/api/v1/apps/${appId}/testers/${tester.id}`).expect(204);
    await until('B seeing none', async () => !(await onBRepository.hasTesters(appId)) || null, AT_ONCE_MS);
  });

  it('a webhook enabled on A counts on B at once; deleted on A, it no longer does', async () => {
    // Counted through B's repository: no status change, so nothing is sent to the (unrouted) address.
    const onBRepository = ctx.b.app.get(WebhooksRepository);
    const before = await onBRepository.countEnabled();
    const { body: hook } = await ctx.onA.as(ctx.admin, 'post', '/api/v1/webhooks').send({ url: 'http://10.0.0.9/cache', enabled: false }).expect(201);
    expect(await onBRepository.countEnabled()).toBe(before);
    await ctx.onA.as(ctx.admin, 'patch', `/api/v1/webhooks/${hook.id}`).send({ enabled: true }).expect(200);
    await until('B counting it', async () => ((await onBRepository.countEnabled()) === before + 1) || null, AT_ONCE_MS);
    expect((await onBRepository.listEnabled()).map((w) => w.url)).toContain('http://10.0.0.9/cache');
    await ctx.onA.as(ctx.admin, 'delete', `/api/v1/webhooks/${hook.id}`).expect(200);
    await until('B forgetting it', async () => ((await onBRepository.countEnabled()) === before) || null, AT_ONCE_MS);
  });
});

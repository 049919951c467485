import type { TestMember } from '../support/factory';
import { useTestRelay } from '../support/use-relay';
import { expectError, expectOk, expectShape, WEBHOOK_SHAPE } from './support';

describe('conformance: §4 Webhooks', () => {
  const ctx = useTestRelay();
  let dev: TestMember;
  let viewer: TestMember;

  beforeAll(async () => {
    dev = await ctx.members.member('Developer');
    viewer = await ctx.members.member('Viewer');
  });

  const create = (body: object) => ctx.members.as(dev, 'post', '/api/v1/webhooks').send(body);

  it('POST: 201 Webhook (has_secret, created_at YYYY-MM-DD HH:MM:SS, enabled default true), never the secret', async () => {
    const res = await create({ url: 'http://10.20.30.40/hook', secret: 's3cret-value' });
    expect(res.status).toBe(201);
    expectShape(res.body, WEBHOOK_SHAPE);
    expect(res.body).toMatchObject({ url: 'http://10.20.30.40/hook', enabled: true, has_secret: true });
    expect(JSON.stringify(res.body)).not.toContain('s3cret-value');
    const plain = await create({ url: 'http://192.168.1.20/hook', enabled: false }).expect(201);
    expect(plain.body).toMatchObject({ enabled: false, has_secret: false });
    const nulled = await create({ url: 'http://192.168.1.21/hook', secret: null }).expect(201);
    expect(nulled.body.has_secret).toBe(false);
  });

  it('GET: 200 { webhooks: [Webhook] }', async () => {
    const res = await ctx.members.as(dev, 'get', '/api/v1/webhooks').expect(200);
    expect(Object.keys(res.body)).toEqual(['webhooks']);
    expect(res.body.webhooks.length).toBeGreaterThan(0);
    for (const w of res.body.webhooks) expectShape(w, WEBHOOK_SHAPE);
    expect(JSON.stringify(res.body)).not.toContain('s3cret-value');
  });

  it('PATCH: only the fields sent change; 200 the updated Webhook; 400 nothing to update; 404 unknown', async () => {
    const { body } = await create({ url: 'http://10.0.0.9/a', secret: 'k' }).expect(201);
    const res = await ctx.members.as(dev, 'patch', `/api/v1/webhooks/${body.id}`).send({ enabled: false });
    expect(res.status).toBe(200);
    expectShape(res.body, WEBHOOK_SHAPE);
    expect(res.body).toEqual({ ...body, enabled: false });
    const cleared = await ctx.members.as(dev, 'patch', `/api/v1/webhooks/${body.id}`).send({ secret: null }).expect(200);
    expect(cleared.body).toEqual({ ...body, enabled: false, has_secret: false });
    expectError(await ctx.members.as(dev, 'patch', `/api/v1/webhooks/${body.id}`).send({}), 400);
    expectError(await ctx.members.as(dev, 'patch', '/api/v1/webhooks/999999').send({ enabled: true }), 404);
  });

  it('DELETE: 200 { ok: true }; then 404', async () => {
    const { body } = await create({ url: 'http://10.0.0.10/a' }).expect(201);
    expectOk(await ctx.members.as(dev, 'delete', `/api/v1/webhooks/${body.id}`));
    expectError(await ctx.members.as(dev, 'delete', `/api/v1/webhooks/${body.id}`), 404);
    expectError(await ctx.members.as(dev, 'patch', `/api/v1/webhooks/${body.id}`).send({ enabled: true }), 404);
  });

  it('registration rejects loopback and cloud-metadata addresses (400); private LAN allowed; url required', async () => {
    expectError(await create({ url: 'http://127.0.0.1/hook' }), 400);
    expectError(await create({ url: 'http://169.254.169.254/latest' }), 400);
    expectError(await create({}), 400);
    await create({ url: 'http://10.1.1.1/hook' }).expect(201);
  });

  it('a Viewer gets 403 `Viewers have read-only access` on every endpoint, list included, cookie or PAT', async () => {
    const pat = await ctx.members.pat(viewer, 'builds:write');
    for (const send of [
      (m: 'get' | 'post' | 'patch' | 'delete', p: string) => ctx.members.as(viewer, m, p),
      (m: 'get' | 'post' | 'patch' | 'delete', p: string) => ctx.members.withPat(pat, m, p),
    ]) {
      expectError(await send('get', '/api/v1/webhooks'), 403, 'Viewers have read-only access');
      expectError(await send('post', '/api/v1/webhooks').send({ url: 'http://10.1.1.2/x' }), 403, 'Viewers have read-only access');
      expectError(await send('patch', '/api/v1/webhooks/1').send({ enabled: false }), 403, 'Viewers have read-only access');
      expectError(await send('delete', '/api/v1/webhooks/1'), 403, 'Viewers have read-only access');
    }
  });

  it('PAT with builds:write is accepted on every webhook endpoint', async () => {
    const pat = await ctx.members.pat(dev, 'builds:write');
    const created = await ctx.members.withPat(pat, 'post', '/api/v1/webhooks').send({ url: 'http://10.1.1.3/x' }).expect(201);
    await ctx.members.withPat(pat, 'get', '/api/v1/webhooks').expect(200);
    await ctx.members.withPat(pat, 'patch', `/api/v1/webhooks/${created.body.id}`).send({ enabled: false }).expect(200);
    expectOk(await ctx.members.withPat(pat, 'delete', `/api/v1/webhooks/${created.body.id}`));
  });
});

import type { TestMember } from '../support/factory';
import { useTestRelay } from '../support/use-relay';
import { DAY, expectError, expectNoContent, expectShape, TOKEN_ITEM_SHAPE } from './support';

describe('conformance: §4 Tokens, §5.3 PAT rules', () => {
  const ctx = useTestRelay();
  let dev: TestMember;

  beforeAll(async () => {
    dev = await ctx.members.member('Developer');
  });

  const create = (member: TestMember, body: object) => ctx.members.as(member, 'post', '/api/v1/tokens').send(body);
  const list = async (member: TestMember) => (await ctx.members.as(member, 'get', '/api/v1/tokens').expect(200)).body;

  it('POST: 201 { token: "svc_pat_…" } only; default scope view,builds:write, no expiry', async () => {
    const res = await create(dev, { name: 'ci' });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(['token']);
    expect(res.body.token).toMatch(/^svc_pat_\S+$/);
    const items = await list(dev);
    const item = items.find((t: { name: string }) => t.name === 'ci');
    expectShape(item, TOKEN_ITEM_SHAPE);
    expect(item).toMatchObject({ scope: 'view,builds:write', expires_at: null });
    expect(item.last_used_at).not.toBeNull();
    expect(JSON.stringify(items)).not.toContain(res.body.token);
  });

  it('GET: array of list items, last_used_at always a timestamp (before and after use)', async () => {
    const { body } = await create(dev, { name: 'used', scope: 'view' }).expect(201);
    await ctx.members.withPat(body.token, 'get', '/api/v1/apps').expect(200);
    const items = await list(dev);
    expect(Array.isArray(items)).toBe(true);
    for (const item of items) expectShape(item, TOKEN_ITEM_SHAPE);
  });

  it('expires_in_days: number or numeric string ≥ 0 (0 = no expiry); negative / non-number / empty / huge 400', async () => {
    await create(dev, { name: 'zero', expires_in_days: 0 }).expect(201);
    await create(dev, { name: 'str', expires_in_days: '3' }).expect(201);
    await create(dev, { name: 'big', expires_in_days: 1000 }).expect(201);
    const items = await list(dev);
    expect(items.find((t: { name: string }) => t.name === 'zero').expires_at).toBeNull();
    const str = items.find((t: { name: string }) => t.name === 'str');
    expect(Date.parse(str.expires_at) - Date.parse(str.created_at)).toBe(3 * DAY);
    for (const bad of [-1, 'abc', '', 1e308, true, [1]]) {
      expectError(await create(dev, { name: 'bad', expires_in_days: bad }), 400);
    }
    expectError(await create(dev, {}), 400);
  });

  it('scopes: view, builds:write, agent; unknown 400; agent only for an Admin (403 otherwise)', async () => {
    expectError(await create(dev, { name: 'x', scope: 'admin' }), 400);
    expectError(await create(dev, { name: 'x', scope: 'agent' }), 403);
    const admin = await ctx.members.admin();
    await create(admin, { name: 'agent', scope: 'agent' }).expect(201);
  });

  it('§5.4: a PAT is held to its owner\'s current role, read on every request', async () => {
    const owner = await ctx.members.member('Developer');
    const admin = await ctx.members.admin();
    const pat = (await create(owner, { name: 'role', scope: 'builds:write' }).expect(201)).body.token;
    const write = () => ctx.members.withPat(pat, 'post', '/api/v1/webhooks').send({ url: 'http://10.9.9.9/x' });
    await write().expect(201);
    await ctx.members.as(admin, 'patch', `/api/v1/team/members/${owner.id}`).send({ role: 'Viewer' }).expect(200);
    expectError(await write(), 403, 'Viewers have read-only access');
    await ctx.members.as(admin, 'patch', `/api/v1/team/members/${owner.id}`).send({ role: 'QA' }).expect(200);
    await write().expect(201);
  });

  it('an expired PAT is 401 `Unauthorized`', async () => {
    const { body } = await create(dev, { name: 'short', scope: 'view', expires_in_days: 1 }).expect(201);
    await ctx.members.withPat(body.token, 'get', '/api/v1/apps').expect(200);
    ctx.relay.clock.advance(DAY + 1000);
    expectError(await ctx.members.withPat(body.token, 'get', '/api/v1/apps'), 401, 'Unauthorized');
    dev = { ...dev, cookie: await ctx.members.login(dev.email) };
  });

  it('DELETE: 204 with no body, revokes at once; another member\'s token 404; PAT cannot manage tokens (401)', async () => {
    const { body } = await create(dev, { name: 'gone', scope: 'view' }).expect(201);
    const id = (await list(dev)).find((t: { name: string }) => t.name === 'gone').id;
    const other = await ctx.members.member('QA');
    expectError(await ctx.members.as(other, 'delete', `/api/v1/tokens/${id}`), 404);
    expectError(await ctx.members.withPat(body.token, 'get', '/api/v1/tokens'), 401, 'Unauthorized');
    expectNoContent(await ctx.members.as(dev, 'delete', `/api/v1/tokens/${id}`));
    expectError(await ctx.members.withPat(body.token, 'get', '/api/v1/apps'), 401, 'Unauthorized');
  });

  it('§5.3: a PAT is refused (401) on every cookie-only endpoint, even with every scope', async () => {
    const admin = await ctx.members.admin();
    const pat = (await create(admin, { name: 'all', scope: 'view,builds:write,agent' }).expect(201)).body.token;
    const cookieOnly: [('get' | 'post' | 'patch' | 'delete'), string][] = [
      ['get', '/api/v1/auth/me'],
      ['post', '/api/v1/auth/logout'],
      ['post', '/api/v1/auth/change-password'],
      ['post', '/api/v1/apps'],
      ['patch', '/api/v1/apps/1'],
      ['delete', '/api/v1/apps/1'],
      ['patch', '/api/v1/builds/1'],
      ['post', '/api/v1/builds/1/schedule-deletion'],
      ['delete', '/api/v1/builds/1/schedule-deletion'],
      ['get', '/api/v1/comments?build_id=1'],
      ['delete', '/api/v1/comments/1'],
      ['get', '/api/v1/team/members'],
      ['post', '/api/v1/team/invite'],
      ['get', '/api/v1/tokens'],
      ['post', '/api/v1/tokens'],
      ['delete', '/api/v1/tokens/1'],
      ['patch', '/api/v1/profile'],
      ['get', '/api/v1/settings'],
      ['patch', '/api/v1/settings'],
      ['get', '/api/v1/recordings'],
      ['post', '/api/v1/recordings/upload'],
      ['get', '/api/v1/agents'],
      ['get', '/api/v1/agents/x/resources'],
      ['get', '/api/v1/relay/host'],
    ];
    for (const [method, path] of cookieOnly) {
      const res = await ctx.members.withPat(pat, method, path).send({});
      expect({ method, path, status: res.status }).toEqual({ method, path, status: 401 });
      expectError(res, 401, 'Unauthorized');
    }
  });

  it('§5.3: a PAT of the wrong scope is 403 `Insufficient scope` where PATs are accepted', async () => {
    const admin = await ctx.members.admin();
    const view = (await create(admin, { name: 'v', scope: 'view' }).expect(201)).body.token;
    const write = (await create(admin, { name: 'w', scope: 'builds:write' }).expect(201)).body.token;
    const agent = (await create(admin, { name: 'a', scope: 'agent' }).expect(201)).body.token;
    const needWrite: [('get' | 'post' | 'patch' | 'delete'), string][] = [
      ['post', '/api/v1/builds'],
      ['get', '/api/v1/builds'],
      ['get', '/api/v1/builds/1'],
      ['post', '/api/v1/comments'],
      ['get', '/api/v1/webhooks'],
      ['post', '/api/v1/webhooks'],
      ['patch', '/api/v1/webhooks/1'],
      ['delete', '/api/v1/webhooks/1'],
    ];
    const needView: [('get' | 'post' | 'patch' | 'delete'), string][] = [
      ['get', '/api/v1/apps'],
      ['get', '/api/v1/sessions/s/screenshot'],
      ['get', '/api/v1/sessions/s/ui-tree'],
      ['get', '/uploads/avatars/0123456789abcdef0123456789abcdef.png'],
    ];
    for (const [method, path] of needWrite) {
      for (const token of [view, agent]) expectError(await ctx.members.withPat(token, method, path), 403, 'Insufficient scope');
    }
    for (const [method, path] of needView) {
      for (const token of [write, agent]) expectError(await ctx.members.withPat(token, method, path), 403, 'Insufficient scope');
    }
  });
});

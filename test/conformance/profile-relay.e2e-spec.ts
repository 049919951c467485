import type { TestMember } from '../support/factory';
import { uploadTestBuild } from '../support/builds';
import { images, MB } from '../support/images';
import { useTestRelay } from '../support/use-relay';
import { expectError, expectOk, expectShape, ME_SHAPE, RELAY_HOST_SHAPE, TEAM_SETTINGS_SHAPE } from './support';

describe('conformance: §4 Profile and settings, Relay, Other surfaces, §7 errors', () => {
  const ctx = useTestRelay();
  let admin: TestMember;
  let qa: TestMember;

  beforeAll(async () => {
    admin = await ctx.members.admin();
    qa = await ctx.members.member('QA');
  });

  describe('Profile and settings', () => {
    it('PATCH /profile: 200 { ok: true }; display_name and avatar show in /auth/me; non-image 400; > 2 MB rejected', async () => {
      expectOk(await ctx.members.as(qa, 'patch', '/api/v1/profile').field('display_name', 'Quinn'));
      expectOk(await ctx.members.as(qa, 'patch', '/api/v1/profile').attach('avatar', images.jpeg(), 'a.jpg'));
      const me = await ctx.members.as(qa, 'get', '/api/v1/auth/me').expect(200);
      expectShape(me.body, ME_SHAPE);
      expect(me.body.displayName).toBe('Quinn');
      expect(me.body.avatarUrl).toMatch(/^\/uploads\/avatars\/[^/]+$/);
      const pic = await ctx.members.as(qa, 'get', me.body.avatarUrl).expect(200);
      expect(pic.headers['content-type']).toMatch(/^image\/jpeg/);
      expectError(await ctx.members.as(qa, 'patch', '/api/v1/profile').attach('avatar', images.gif(), 'a.gif'), 400);
      const big = await ctx.members.as(qa, 'patch', '/api/v1/profile').attach('avatar', images.png(2 * MB + 1), 'a.png');
      expectError(big, big.status);
      expect([400, 413]).toContain(big.status);
    });

    it('GET /settings: { team_name, logo_url } with logo_url null without a logo; any signed-in role', async () => {
      const res = await ctx.members.as(qa, 'get', '/api/v1/settings').expect(200);
      expectShape(res.body, TEAM_SETTINGS_SHAPE);
      expect(res.body.logo_url).toBeNull();
      expectError(await ctx.relay.http().get('/api/v1/settings'), 401, 'Unauthorized');
    });

    it('PATCH /settings: Admin only (403 `Forbidden`), 200 { ok: true }; logo_url then a /uploads/ path', async () => {
      expectError(await ctx.members.as(qa, 'patch', '/api/v1/settings').field('team_name', 'Nope'), 403, 'Forbidden');
      expectOk(await ctx.members.as(admin, 'patch', '/api/v1/settings').field('team_name', 'Mobile').attach('logo', images.png(), 'l.png'));
      const res = await ctx.members.as(qa, 'get', '/api/v1/settings').expect(200);
      expectShape(res.body, TEAM_SETTINGS_SHAPE);
      expect(res.body.team_name).toBe('Mobile');
      expect(res.body.logo_url).toMatch(/^\/uploads\/logos\/[^/]+$/);
      const pat = await ctx.members.pat(qa, 'view');
      await ctx.members.withPat(pat, 'get', res.body.logo_url).expect(200);
      expectError(await ctx.relay.http().get(res.body.logo_url), 401, 'Unauthorized');
    });
  });

  describe('Relay', () => {
    it('GET /relay/host: exactly { lanHost, port, publicBaseUrl, agentRelayUrl }; sign-in required', async () => {
      const res = await ctx.members.as(qa, 'get', '/api/v1/relay/host').expect(200);
      expectShape(res.body, RELAY_HOST_SHAPE);
      expect(res.body.port).toBe(ctx.relay.port);
      expect(res.body.publicBaseUrl).toBeNull();
      expectError(await ctx.relay.http().get('/api/v1/relay/host'), 401, 'Unauthorized');
    });

    it('GET /logs: array of strings from the relay host, signed in or not; lines default 100, clamped 1..500', async () => {
      for (let i = 0; i < 120; i++) await ctx.relay.http().get('/api/v1/auth/status');
      const all = await ctx.relay.http().get('/api/v1/logs').expect(200);
      expect(Array.isArray(all.body)).toBe(true);
      expect(all.body.every((l: unknown) => typeof l === 'string')).toBe(true);
      expect(all.body).toHaveLength(100);
      for (const [q, n] of [['lines=7', 7], ['lines=0', 1], ['lines=-3', 1], ['lines=abc', 100], ['lines=', 100]] as const) {
        const res = await ctx.relay.http().get(`/api/v1/logs?${q}`).expect(200);
        expect({ q, n: res.body.length }).toEqual({ q, n });
      }
      const max = await ctx.relay.http().get('/api/v1/logs?lines=100000').expect(200);
      expect(max.body.length).toBeGreaterThan(100);
      expect(max.body.length).toBeLessThanOrEqual(500);
      await ctx.members.as(qa, 'get', '/api/v1/logs?lines=2').expect(200);
    });

    it('GET /logs through a forwarding proxy (not from the relay host) is 403 { error }', async () => {
      expectError(await ctx.relay.http().get('/api/v1/logs').set('X-Forwarded-For', '203.0.113.9'), 403, /relay host/);
    });
  });

  describe('§7 error bodies', () => {
    it('unknown API route: 404 { error } JSON', async () => {
      expectError(await ctx.relay.http().get('/api/v1/does-not-exist'), 404);
      expectError(await ctx.members.as(qa, 'get', '/api/v1/builds/abc'), 400);
    });

    it('malformed JSON: 400 { error } JSON', async () => {
      const res = await ctx.members.as(qa, 'post', '/api/v1/auth/change-password').set('Content-Type', 'application/json').send('{"a":');
      expectError(res, 400);
    });

    it('a body declared gzip that is not gzip is the client\'s error: 400 { error }, not 500', async () => {
      const res = await ctx.members
        .as(qa, 'post', '/api/v1/tokens')
        .set('Content-Type', 'application/json')
        .set('Content-Encoding', 'gzip')
        .send('{"name":"x"}');
      expectError(res, 400);
    });

    it('a file response that fails (Range past the end) is still JSON { error }, not labelled as the file', async () => {
      const { id } = await uploadTestBuild(ctx.members, qa);
      const res = await ctx.members.as(qa, 'get', `/api/v1/builds/${id}/download`).set('Range', 'bytes=999999999-');
      expectError(res, 416);
      expect(res.headers['content-disposition']).toBeUndefined();
      expect(res.headers['content-range']).toMatch(/^bytes \*\/\d+$/);
    });

    it('/uploads/ unknown file: 404 { error }; without credentials 401', async () => {
      expectError(await ctx.members.as(qa, 'get', '/uploads/avatars/0123456789abcdef0123456789abcdef.png'), 404);
      expectError(await ctx.relay.http().get('/uploads/avatars/0123456789abcdef0123456789abcdef.png'), 401, 'Unauthorized');
    });
  });
});

import { DAY_MS } from '../../src/common/time';
import { TEST_PASSWORD, sessionCookieFrom } from '../support/factory';
import { PROBE, ProbeModule } from '../support/probe.module';
import { useTestRelay } from '../support/use-relay';

const NEW_PASSWORD = 'a brand new passphrase';

describe('sessions: me, logout, change-password, expiry', () => {
  const ctx = useTestRelay({}, { imports: [ProbeModule] });
  beforeAll(async () => {
    await ctx.members.admin();
  });

  const me = (cookie: string) => ctx.relay.http().get('/api/v1/auth/me').set('Cookie', cookie);

  describe('GET /auth/me', () => {
    it('200 current user; displayName falls back to the part before @', async () => {
      const member = await ctx.members.member('Viewer', 'Pat.Smith@Example.com');
      const res = await me(member.cookie).expect(200);
      expect(res.body).toEqual({
        id: member.id,
        email: 'pat.smith@example.com',
        displayName: 'pat.smith',
        avatarUrl: null,
        role: 'Viewer',
      });
    });

    it('401 Unauthorized without a cookie, with an unknown or malformed cookie', async () => {
      for (const cookie of [
        null,
        'svc_token=',
        'svc_token=unknown',
        'svc_token=%E0%A4%A',
        `svc_token=${'x'.repeat(5000)}`,
        'other=1',
      ]) {
        const req = ctx.relay.http().get('/api/v1/auth/me');
        const res = await (cookie === null ? req : req.set('Cookie', cookie));
        expect({ cookie, status: res.status, body: res.body }).toEqual({
          cookie,
          status: 401,
          body: { error: 'Unauthorized' },
        });
      }
    });

    it('reads the role from the database on every request', async () => {
      const member = await ctx.members.member('QA');
      const { UsersService } = await import('../../src/users/users.service');
      await ctx.relay.app.get(UsersService).update(member.id, { role: 'Admin' });
      expect((await me(member.cookie).expect(200)).body.role).toBe('Admin');
    });
  });

  describe('POST /auth/logout', () => {
    it('200 { ok: true }, clears the cookie, and the old value is dead', async () => {
      const member = await ctx.members.member('QA');
      const otherBrowser = await ctx.members.login(member.email);
      const res = await ctx.relay.http().post('/api/v1/auth/logout').set('Cookie', member.cookie).expect(200);
      expect(res.body).toEqual({ ok: true });
      const cleared = ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((c) => c.startsWith('svc_token='));
      expect(cleared).toBeDefined();
      expect(cleared).toMatch(/^svc_token=;/);
      expect(cleared).toMatch(/Expires=Thu, 01 Jan 1970/);
      expect(cleared).toMatch(/Path=\//);

      await me(member.cookie).expect(401);
      await ctx.relay.http().post('/api/v1/auth/logout').set('Cookie', member.cookie).expect(401);
      // logout ends this browser only
      await me(otherBrowser).expect(200);
    });

    it('401 without a cookie, and a PAT is no credential for it', async () => {
      const member = await ctx.members.member('Developer');
      const pat = await ctx.members.pat(member);
      const none = await ctx.relay.http().post('/api/v1/auth/logout');
      expect(none.status).toBe(401);
      expect(none.body).toEqual({ error: 'Unauthorized' });
      await ctx.members.withPat(pat, 'post', '/api/v1/auth/logout').expect(401);
    });

    it('a cross-site logout is refused and the session lives on', async () => {
      const member = await ctx.members.member('QA');
      const res = await ctx.relay.http().post('/api/v1/auth/logout').set('Cookie', member.cookie).set('Origin', 'http://evil.example');
      expect(res.status).toBe(403);
      await me(member.cookie).expect(200);
    });
  });

  describe('POST /auth/change-password', () => {
    it('sets a new cookie, ends every other session (and the old cookie), keeps PATs', async () => {
      const member = await ctx.members.member('Developer');
      const otherBrowser = await ctx.members.login(member.email);
      const pat = await ctx.members.pat(member, 'builds:write');
      await ctx.members.withPat(pat, 'post', `${PROBE}/write`).expect(201);

      const res = await ctx.members
        .as(member, 'post', '/api/v1/auth/change-password')
        .send({ currentPassword: TEST_PASSWORD, newPassword: NEW_PASSWORD })
        .expect(200);
      expect(res.body).toEqual({ ok: true });
      const fresh = sessionCookieFrom(res.headers['set-cookie']);
      expect(fresh).not.toBe(member.cookie);
      expect(([] as string[]).concat(res.headers['set-cookie']).join(';')).toMatch(/HttpOnly/);

      await me(member.cookie).expect(401);
      await me(otherBrowser).expect(401);
      await me(fresh).expect(200);
      await ctx.members.withPat(pat, 'post', `${PROBE}/write`).expect(201);

      await ctx.relay.http().post('/api/v1/auth/login').send({ email: member.email, password: TEST_PASSWORD }).expect(401);
      await ctx.relay.http().post('/api/v1/auth/login').send({ email: member.email, password: NEW_PASSWORD }).expect(200);
    });

    it('a wrong current password is 400 and changes nothing', async () => {
      const member = await ctx.members.member('QA');
      const otherBrowser = await ctx.members.login(member.email);
      const res = await ctx.members
        .as(member, 'post', '/api/v1/auth/change-password')
        .send({ currentPassword: 'not my password', newPassword: NEW_PASSWORD });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'Current password is incorrect' });
      expect(res.headers['set-cookie']).toBeUndefined();
      await me(member.cookie).expect(200);
      await me(otherBrowser).expect(200);
      await ctx.relay.http().post('/api/v1/auth/login').send({ email: member.email, password: TEST_PASSWORD }).expect(200);
    });

    it.each([
      ['no body', {}, 'currentPassword is required'],
      ['no new password', { currentPassword: TEST_PASSWORD }, 'newPassword must be at least 8 characters'],
      ['7-character new password', { currentPassword: TEST_PASSWORD, newPassword: '1234567' }, 'newPassword must be at least 8 characters'],
      ['numeric new password', { currentPassword: TEST_PASSWORD, newPassword: 12345678 }, 'newPassword must be at least 8 characters'],
    ])('400 for %s', async (_label, body, error) => {
      const member = await ctx.members.member('QA');
      const res = await ctx.members.as(member, 'post', '/api/v1/auth/change-password').send(body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error });
    });

    it('401 without a cookie or with a PAT; 403 cross-site', async () => {
      const member = await ctx.members.member('QA');
      const pat = await ctx.members.pat(member);
      const body = { currentPassword: TEST_PASSWORD, newPassword: NEW_PASSWORD };
      await ctx.relay.http().post('/api/v1/auth/change-password').send(body).expect(401);
      await ctx.members.withPat(pat, 'post', '/api/v1/auth/change-password').send(body).expect(401);
      const cross = await ctx.members
        .as(member, 'post', '/api/v1/auth/change-password')
        .set('Origin', 'http://evil.example')
        .send(body);
      expect(cross.status).toBe(403);
      await ctx.relay.http().post('/api/v1/auth/login').send({ email: member.email, password: TEST_PASSWORD }).expect(200);
    });
  });

  describe('expiry', () => {
    it('a session lasts 7 days (moved with the clock)', async () => {
      const member = await ctx.members.member('QA');
      ctx.relay.clock.advance(7 * DAY_MS - 60_000);
      await me(member.cookie).expect(200);
      ctx.relay.clock.advance(61_000);
      const res = await me(member.cookie);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: 'Unauthorized' });
    });
  });
});

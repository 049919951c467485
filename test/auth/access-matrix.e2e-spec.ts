import { ROLES, Role } from '../../src/common/auth/role';
import { UsersService } from '../../src/users/users.service';
import { TestMember } from '../support/factory';
import { PROBE, PROBE_FAILURE_DETAIL, ProbeModule } from '../support/probe.module';
import { useTestRelay } from '../support/use-relay';

type Method = 'get' | 'post' | 'delete';
type Credential = 'cookie' | 'none' | 'pat:view' | 'pat:builds:write' | 'pat:agent';

/** The foundation's cookie-only endpoints (spec §4 Auth / Tokens / Relay) and a harmless body for each. */
const COOKIE_ONLY: { method: Method; path: string; ok: number; body?: object }[] = [
  { method: 'get', path: '/api/v1/auth/me', ok: 200 },
  { method: 'get', path: '/api/v1/tokens', ok: 200 },
  { method: 'post', path: '/api/v1/tokens', ok: 201, body: { name: 'matrix', scope: 'view' } },
  { method: 'get', path: '/api/v1/relay/host', ok: 200 },
  // last: it ends the cell's session
  { method: 'post', path: '/api/v1/auth/logout', ok: 200 },
];

describe('access matrix: each role × cookie / PAT scope / nothing', () => {
  const ctx = useTestRelay({}, { imports: [ProbeModule] });

  /** A fresh member per cell, so logout in one cell cannot affect another. */
  async function caller(role: Role, credential: Credential): Promise<(method: Method, path: string) => ReturnType<typeof ctx.members.as>> {
    const member: TestMember = await ctx.members.member(role);
    if (credential === 'none') return (method, path) => ctx.relay.http()[method](path);
    if (credential === 'cookie') return (method, path) => ctx.members.as(member, method, path);
    const scope = credential.slice('pat:'.length);
    const pat = await ctx.members.pat(member, scope);
    return (method, path) => ctx.members.withPat(pat, method, path);
  }

  const credentials: Credential[] = ['cookie', 'none', 'pat:view', 'pat:builds:write', 'pat:agent'];
  const cells = ROLES.flatMap((role) =>
    credentials.filter((c) => c !== 'pat:agent' || role === 'Admin').map((c) => [role, c] as [Role, Credential]),
  );

  describe.each(cells)('%s with %s', (role, credential) => {
    /** One member per cell; the cell's tests run in order and the cookie-only ones (logout last) come last. */
    let call: Awaited<ReturnType<typeof caller>>;
    beforeAll(async () => {
      call = await caller(role, credential);
    });

    it('public endpoints answer everyone: GET /auth/status, GET /logs (from this host)', async () => {
      expect((await call('get', '/api/v1/auth/status')).status).toBe(200);
      expect((await call('get', '/api/v1/logs?lines=1')).status).toBe(200);
    });

    it('PAT-accepting routes: scope, then role (probe routes shaped like GET /apps, POST /builds, GET /builds)', async () => {
      const view = await call('get', `${PROBE}/view`);
      const write = await call('post', `${PROBE}/write`);
      const readBuilds = await call('get', `${PROBE}/read-builds`);
      const expected = expectedProbe(role, credential);
      expect({ view: view.body, write: write.body, readBuilds: readBuilds.body }).toEqual({
        view: expected.view.body,
        write: expected.write.body,
        readBuilds: expected.readBuilds.body,
      });
      expect([view.status, write.status, readBuilds.status]).toEqual([
        expected.view.status,
        expected.write.status,
        expected.readBuilds.status,
      ]);
    });

    it('Admin-only cookie route', async () => {
      const res = await call('post', `${PROBE}/admin`);
      if (credential !== 'cookie') expect(res.status).toBe(401);
      else if (role === 'Admin') expect(res.status).toBe(201);
      else expect({ status: res.status, body: res.body }).toEqual({ status: 403, body: { error: 'Forbidden' } });
    });

    it.each(COOKIE_ONLY.map((e) => [`${e.method.toUpperCase()} ${e.path}`, e] as const))(
      'cookie only: %s',
      async (_name, endpoint) => {
        const res = await call(endpoint.method, endpoint.path).send(endpoint.body ?? {});
        if (credential === 'cookie') {
          expect(res.status).toBe(endpoint.ok);
        } else {
          expect(res.status).toBe(401);
          expect(res.body).toEqual({ error: 'Unauthorized' });
        }
      },
    );
  });

  function expectedProbe(role: Role, credential: Credential) {
    const ok = (status: number) => ({ status, body: expect.objectContaining({ role }) });
    const err = (status: number, error: string) => ({ status, body: { error } });
    const unauthorized = err(401, 'Unauthorized');
    const scope = err(403, 'Insufficient scope');
    const viewer = err(403, 'Viewers have read-only access');
    if (credential === 'none') return { view: unauthorized, write: unauthorized, readBuilds: unauthorized };
    const has = (s: string) => credential === 'cookie' || credential === `pat:${s}`;
    return {
      view: has('view') ? ok(200) : scope,
      write: !has('builds:write') ? scope : role === 'Viewer' ? viewer : ok(201),
      readBuilds: has('builds:write') ? ok(200) : scope,
    };
  }

  describe('the role is read on every request, for cookies and PATs alike', () => {
    it('demoting to Viewer refuses the next write; promoting back allows it, with no new token', async () => {
      const member = await ctx.members.member('Developer');
      const pat = await ctx.members.pat(member, 'builds:write');
      const users = ctx.relay.app.get(UsersService);
      await ctx.members.withPat(pat, 'post', `${PROBE}/write`).expect(201);
      await ctx.members.as(member, 'post', `${PROBE}/write`).expect(201);

      await users.update(member.id, { role: 'Viewer' });
      const byPat = await ctx.members.withPat(pat, 'post', `${PROBE}/write`);
      expect({ status: byPat.status, body: byPat.body }).toEqual({
        status: 403,
        body: { error: 'Viewers have read-only access' },
      });
      await ctx.members.as(member, 'post', `${PROBE}/write`).expect(403);

      await users.update(member.id, { role: 'Admin' });
      await ctx.members.withPat(pat, 'post', `${PROBE}/write`).expect(201);
      await ctx.members.as(member, 'post', `${PROBE}/admin`).expect(201);
    });
  });

  describe('the global guard', () => {
    it('refuses a route that declares no @Auth, even for an Admin', async () => {
      const admin = await ctx.members.admin();
      const res = await ctx.members.as(admin, 'get', `${PROBE}/undeclared`);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: 'Forbidden' });
      await ctx.relay.http().get(`${PROBE}/undeclared`).expect(403);
    });

    it('an unexpected exception is 500 `Internal server error`; the details are only in the log', async () => {
      const res = await ctx.relay.http().get(`${PROBE}/boom`);
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ error: 'Internal server error' });
      expect(res.text).not.toContain('probe exploded');
      const log = ctx.relay.logger.buffer.tail(500).join('\n');
      expect(log).toContain('GET /api/v1/test-probe/boom failed: probe exploded');
      expect(log).toContain('"level":"error"');
      expect(log).toContain('"stack"');
      // the log masks the secret in the message
      expect(PROBE_FAILURE_DETAIL).toContain('hunter2');
      expect(log).not.toContain('hunter2');
    });
  });
});

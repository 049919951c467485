import type { Role } from '../../src/common/auth/role';
import { MemberFactory, TestMember } from '../support/factory';
import { startTestRelay, TestRelay } from '../support/test-relay';

type Method = 'get' | 'post' | 'patch' | 'delete';

/** spec §5.6: Admin only (cookie only; a PAT is no credential here). Every non-Admin role gets 403. */
describe('Admin-only matrix for team routes', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  const byRole: Partial<Record<Role, TestMember>> = {};
  let target: TestMember;

  beforeAll(async () => {
    relay = await startTestRelay();
    members = new MemberFactory(relay);
    byRole.Admin = await members.admin();
    for (const role of ['Developer', 'QA', 'Viewer'] as Role[]) byRole[role] = await members.member(role);
    target = await members.member('QA');
  });
  afterAll(() => relay.close());

  const routes: Array<{ method: Method; path: string; body?: object; adminStatus: number }> = [
    { method: 'get', path: '/api/v1/team/members', adminStatus: 200 },
    { method: 'post', path: '/api/v1/team/invite', body: { role: 'QA' }, adminStatus: 201 },
    { method: 'patch', path: '/api/v1/team/members/:id', body: { role: 'QA' }, adminStatus: 200 },
    { method: 'post', path: '/api/v1/team/members/:id/send-reset', adminStatus: 200 },
    { method: 'delete', path: '/api/v1/team/members/:id', adminStatus: 204 },
  ];

  for (const route of routes) {
    it(`${route.method.toUpperCase()} ${route.path}: 401 without sign-in, 401 with a PAT, 403 for every non-Admin, then Admin`, async () => {
      const path = route.path.replace(':id', String(target.id));
      await relay.http()[route.method](path).send(route.body).expect(401);
      const pat = await members.pat(byRole.Admin!, 'view,builds:write');
      await members.withPat(pat, route.method, path).send(route.body).expect(401);
      for (const role of ['Developer', 'QA', 'Viewer'] as Role[]) {
        const res = await members.as(byRole[role]!, route.method, path).send(route.body);
        expect({ role, status: res.status, body: res.body }).toEqual({ role, status: 403, body: { error: 'Forbidden' } });
      }
      await members.as(byRole.Admin!, route.method, path).send(route.body).expect(route.adminStatus);
    });
  }

  it('PATCH /settings is Admin only; GET /settings needs only a sign-in', async () => {
    for (const role of ['Developer', 'QA', 'Viewer'] as Role[]) {
      await members.as(byRole[role]!, 'patch', '/api/v1/settings').field('team_name', 'x').expect(403);
      await members.as(byRole[role]!, 'get', '/api/v1/settings').expect(200);
    }
    await relay.http().get('/api/v1/settings').expect(401);
    await members.as(byRole.Admin!, 'patch', '/api/v1/settings').field('team_name', 'Crew').expect(200);
  });
});

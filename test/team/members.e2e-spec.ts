import { EventEmitter2 } from '@nestjs/event-emitter';
import { MemberDeletedEvent } from '../../src/users/events/member-deleted.event';
import { MemberRoleChangedEvent } from '../../src/users/events/member-role-changed.event';
import { MemberFactory } from '../support/factory';
import { startTestRelay, TestRelay } from '../support/test-relay';

describe('team members', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  const events: Array<{ name: string; payload: unknown }> = [];

  beforeAll(async () => {
    relay = await startTestRelay();
    members = new MemberFactory(relay);
    const emitter = relay.app.get(EventEmitter2);
    for (const name of [MemberRoleChangedEvent.eventName, MemberDeletedEvent.eventName]) {
      emitter.on(name, (payload: unknown) => events.push({ name, payload }));
    }
  });
  afterAll(() => relay.close());

  it('lists members in the spec shape (display name falls back to the e-mail local part)', async () => {
    const admin = await members.admin();
    const dev = await members.member('Developer', 'dev.person@example.com');
    const res = await members.as(admin, 'get', '/api/v1/team/members').expect(200);
    const row = res.body.find((m: { id: number }) => m.id === dev.id);
    expect(row).toEqual({
      id: dev.id,
      email: 'dev.person@example.com',
      display_name: 'dev.person',
      role: 'Developer',
      joined_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      avatar_url: null, // beyond the spec: the Team page's avatars (docs/team.md)
    });
  });

  it('changes a role (200 { ok }), applies at once, and emits member.role_changed', async () => {
    const admin = await members.admin();
    const qa = await members.member('QA');
    await members.as(qa, 'get', '/api/v1/team/members').expect(403);
    const res = await members.as(admin, 'patch', `/api/v1/team/members/${qa.id}`).send({ role: 'Admin' }).expect(200);
    expect(res.body).toEqual({ ok: true });
    await members.as(qa, 'get', '/api/v1/team/members').expect(200);
    expect(events).toContainEqual({
      name: MemberRoleChangedEvent.eventName,
      payload: expect.objectContaining({ userId: qa.id, previousRole: 'QA', role: 'Admin' }),
    });
    await members.as(admin, 'patch', `/api/v1/team/members/${qa.id}`).send({ role: 'QA' }).expect(200);
  });

  it('rejects a bad role (400), an unknown member (404) and a bad id (400)', async () => {
    const admin = await members.admin();
    const qa = await members.member('QA');
    const bad = await members.as(admin, 'patch', `/api/v1/team/members/${qa.id}`).send({ role: 'Owner' }).expect(400);
    expect(bad.body.error).toMatch(/role must be one of/);
    await members.as(admin, 'patch', `/api/v1/team/members/${qa.id}`).send({}).expect(400);
    const missing = await members.as(admin, 'patch', '/api/v1/team/members/99999').send({ role: 'QA' }).expect(404);
    expect(missing.body).toEqual({ error: 'Member not found' });
    await members.as(admin, 'delete', '/api/v1/team/members/99999').expect(404);
    await members.as(admin, 'delete', '/api/v1/team/members/abc').expect(400);
  });

  it('refuses to delete yourself', async () => {
    const admin = await members.admin();
    const res = await members.as(admin, 'delete', `/api/v1/team/members/${admin.id}`).expect(400);
    expect(res.body.error).toMatch(/own account/);
  });

  it('protects the last Admin from demotion (409) but lets an Admin step down when another exists', async () => {
    const fresh = await startTestRelay();
    try {
      const f = new MemberFactory(fresh);
      const admin = await f.admin();
      const res = await f.as(admin, 'patch', `/api/v1/team/members/${admin.id}`).send({ role: 'Viewer' }).expect(409);
      expect(res.body.error).toMatch(/last Admin/);
      const second = await f.member('Admin');
      // Both Admins demoted at the same moment (both requests pass the guard): exactly one succeeds.
      const [a, b] = await Promise.all([
        f.as(admin, 'patch', `/api/v1/team/members/${second.id}`).send({ role: 'QA' }),
        f.as(admin, 'patch', `/api/v1/team/members/${admin.id}`).send({ role: 'QA' }),
      ]);
      expect([a.status, b.status].sort()).toEqual([200, 409]);
      const list = await f.as(a.status === 200 ? admin : second, 'get', '/api/v1/team/members').expect(200);
      expect(list.body.filter((m: { role: string }) => m.role === 'Admin')).toHaveLength(1);
    } finally {
      await fresh.close();
    }
  });

  it('deletes a member (204): their cookie and PATs stop working at once, member.deleted is emitted', async () => {
    const admin = await members.admin();
    const dev = await members.member('Developer');
    const pat = await members.pat(dev, 'view');
    await members.withPat(pat, 'get', '/uploads/avatars/00000000000000000000000000000000.png').expect(404);
    const res = await members.as(admin, 'delete', `/api/v1/team/members/${dev.id}`).expect(204);
    expect(res.text).toBe('');
    await members.as(dev, 'get', '/api/v1/auth/me').expect(401);
    await members.withPat(pat, 'get', '/uploads/avatars/00000000000000000000000000000000.png').expect(401);
    expect(events).toContainEqual({ name: MemberDeletedEvent.eventName, payload: expect.objectContaining({ userId: dev.id }) });
    const list = await members.as(admin, 'get', '/api/v1/team/members').expect(200);
    expect(list.body.map((m: { id: number }) => m.id)).not.toContain(dev.id);
    await relay.http().post('/api/v1/auth/login').send({ email: dev.email, password: dev.password }).expect(401);
  });
});

import { DataSource } from 'typeorm';
import { TokenLastUse } from '../../src/tokens/token-last-use';
import type { TestMember } from '../support/factory';
import { scimDeactivate } from '../support/scim';
import { PROBE, ProbeModule } from '../support/probe.module';
import { useTestRelay } from '../support/use-relay';

/**
 * Issue 42: a credential's lookup is reused for a few seconds, and revocation is still instant.
 * Each test first uses the credential (so its lookup is held), then revokes it, then expects the
 * very next request to be refused, with no wait.
 */
describe('credential lookups held briefly, revocation instant', () => {
  const ctx = useTestRelay({}, { imports: [ProbeModule] });
  let admin: TestMember;
  beforeAll(async () => {
    admin = await ctx.members.admin();
  });

  /** The member's newest token's id. */
  const tokenIdOf = async (member: TestMember): Promise<number> => {
    const items = (await ctx.members.as(member, 'get', '/api/v1/tokens').expect(200)).body as { id: number }[];
    return items[items.length - 1].id;
  };

  it('a PAT used, then revoked: the next request is 401', async () => {
    const member = await ctx.members.member('Developer');
    const pat = await ctx.members.pat(member, 'view');
    await ctx.members.withPat(pat, 'get', `${PROBE}/view`).expect(200);
    await ctx.members.withPat(pat, 'get', `${PROBE}/view`).expect(200);
    await ctx.members.as(member, 'delete', `/api/v1/tokens/${await tokenIdOf(member)}`).expect(204);
    await ctx.members.withPat(pat, 'get', `${PROBE}/view`).expect(401);
  });

  it('an Admin demoted to Viewer: the next request is refused the Admin route (cookie) and the writers route (PAT)', async () => {
    const member = await ctx.members.member('Admin');
    const pat = await ctx.members.pat(member, 'view,builds:write');
    await ctx.members.as(member, 'get', '/api/v1/team/members').expect(200);
    await ctx.members.withPat(pat, 'post', `${PROBE}/write`).expect(201);
    await ctx.members.as(admin, 'patch', `/api/v1/team/members/${member.id}`).send({ role: 'Viewer' }).expect(200);
    await ctx.members.as(member, 'get', '/api/v1/team/members').expect(403);
    await ctx.members.withPat(pat, 'post', `${PROBE}/write`).expect(403);
    expect((await ctx.members.withPat(pat, 'get', `${PROBE}/view`).expect(200)).body).toMatchObject({ role: 'Viewer' });
  });

  it('a member deactivated through SCIM: the next request with their cookie or PAT is 401', async () => {
    const scimToken = (await ctx.members.as(admin, 'post', '/api/v1/scim/tokens').send({ name: 'idp' }).expect(201)).body.token;
    const leaver = await ctx.members.member('QA', 'cache-leaver@corp.example');
    const pat = await ctx.members.pat(leaver, 'view');
    await ctx.members.as(leaver, 'get', '/api/v1/auth/me').expect(200);
    await ctx.members.withPat(pat, 'get', `${PROBE}/view`).expect(200);
    await scimDeactivate(ctx.relay, scimToken, leaver.id).expect(200);
    await ctx.members.as(leaver, 'get', '/api/v1/auth/me').expect(401);
    await ctx.members.withPat(pat, 'get', `${PROBE}/view`).expect(401);
  });

  it('sign-out: the next request with that cookie is 401', async () => {
    const member = await ctx.members.member('QA');
    await ctx.members.as(member, 'get', '/api/v1/auth/me').expect(200);
    await ctx.relay.http().post('/api/v1/auth/logout').set('Cookie', member.cookie).expect(200);
    await ctx.members.as(member, 'get', '/api/v1/auth/me').expect(401);
  });

  it('a member changed by any path (no revocation event, only member.changed): the next request sees the row', async () => {
    const member = await ctx.members.member('QA');
    const pat = await ctx.members.pat(member, 'view');
    await ctx.members.withPat(pat, 'get', `${PROBE}/view`).expect(200);
    const { UsersService } = await import('../../src/users/users.service');
    await ctx.relay.app.get(UsersService).update(member.id, { role: 'Viewer' });
    expect((await ctx.members.withPat(pat, 'get', `${PROBE}/view`).expect(200)).body).toMatchObject({ role: 'Viewer' });
    await ctx.relay.app.get(UsersService).update(member.id, { active: false });
    await ctx.members.withPat(pat, 'get', `${PROBE}/view`).expect(401);
  });

  it("a PAT's use is not written during the request: GET /tokens shows it at once, the row gets it at the next flush", async () => {
    const member = await ctx.members.member('QA');
    const pat = await ctx.members.pat(member, 'view');
    const id = await tokenIdOf(member);
    const stored = async () => {
      const [row]: { last_used_at: number | string; created_at: number | string }[] = await ctx.relay.app
        .get(DataSource)
        .query('SELECT last_used_at, created_at FROM personal_access_tokens WHERE id = ' + Number(id));
      return { lastUsed: Number(row.last_used_at), created: Number(row.created_at) };
    };
    await ctx.relay.app.get(TokenLastUse).flush();
    ctx.relay.clock.advance(5_000);
    await ctx.members.withPat(pat, 'get', `${PROBE}/view`).expect(200);
    const before = await stored();
    expect(before.lastUsed).toBe(before.created);
    const listed = Date.parse((await ctx.members.as(member, 'get', '/api/v1/tokens').expect(200)).body.find((t: { id: number }) => t.id === id).last_used_at);
    expect(listed).toBeGreaterThan(before.created);
    await ctx.relay.app.get(TokenLastUse).flush();
    expect((await stored()).lastUsed).toBe(listed);
  });
});

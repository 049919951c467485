import Redis from 'ioredis';
import { ClusterEventsBridge } from '../../src/cluster/cluster-events.bridge';
import { TokenLastUse } from '../../src/tokens/token-last-use';
import { scimDeactivate } from '../support/scim';
import { describeUnless } from '../support/describe-unless';
import { MemberFactory, type TestMember } from '../support/factory';
import { PG_ADMIN_URL, REDIS_URL, unreachable } from '../support/reachable';
import { startTestRelay, type TestRelay } from '../support/test-relay';
import { useTwoInstances } from './cluster-env';

/**
 * Issue 42 across instances: B holds a credential's lookup for a few seconds; a revocation made
 * through A reaches B through the cluster bus (the events that close sockets), and B's very next
 * request with that credential is refused, with no wait.
 */
describeUnless(unreachable([PG_ADMIN_URL, REDIS_URL]), 'credential lookups on two instances (PostgreSQL + Redis)', () => {
  const ctx = useTwoInstances();

  const newestTokenId = async (member: TestMember): Promise<number> => {
    const items = (await ctx.onA.as(member, 'get', '/api/v1/tokens').expect(200)).body as { id: number }[];
    return items[items.length - 1].id;
  };

  it('a PAT used on B and revoked on A: B answers the next request 401', async () => {
    const member = await ctx.onA.member('Developer');
    const pat = await ctx.onA.pat(member, 'view');
    await ctx.onB.withPat(pat, 'get', '/api/v1/apps').expect(200);
    await ctx.onA.as(member, 'delete', `/api/v1/tokens/${await newestTokenId(member)}`).expect(204);
    await ctx.onB.withPat(pat, 'get', '/api/v1/apps').expect(401);
  });

  /** Makes `relay` handle the events of other instances `delayMs` later, or never (null). */
  const handleEventsLate = (relay: TestRelay, delayMs: number | null) => {
    const bridge = relay.app.get(ClusterEventsBridge) as unknown as { receive: (envelope: unknown) => void };
    const receive = bridge.receive.bind(bridge);
    return jest.spyOn(bridge, 'receive').mockImplementation((envelope) => {
      if (delayMs !== null) setTimeout(() => receive(envelope), delayMs);
    });
  };

  it.each([
    ['B slow to handle events: A answers the revocation only once B has forgotten the PAT', 300, () => ctx.onB],
    ['B never says it handled the event: the revocation is not held up by it', null, () => ctx.onA],
  ])('%s', async (_title, delayMs, checkedOn) => {
    const member = await ctx.onA.member('Developer');
    const pat = await ctx.onA.pat(member, 'view');
    await ctx.onB.withPat(pat, 'get', '/api/v1/apps').expect(200);
    const late = handleEventsLate(ctx.b, delayMs);
    try {
      await ctx.onA.as(member, 'delete', `/api/v1/tokens/${await newestTokenId(member)}`).expect(204);
      expect(late).toHaveBeenCalled();
      await checkedOn().withPat(pat, 'get', '/api/v1/apps').expect(401);
    } finally {
      late.mockRestore();
    }
  });

  it("a client listening on the events channel that is not a relay (an operator's monitor) waits for no receipt", async () => {
    const monitor = new Redis(REDIS_URL);
    try {
      await monitor.subscribe(`${ctx.cluster.prefix}events`);
      const member = await ctx.onA.member('Developer');
      const pat = await ctx.onA.pat(member, 'view');
      await ctx.onB.withPat(pat, 'get', '/api/v1/apps').expect(200);
      // Both instances share this process's Nest Logger, which writes to the last one started: read both.
      const warnings = () => [ctx.a, ctx.b].flatMap((relay) => relay.logger.buffer.tail(500)).filter((line) => line.includes('did not say they handled it'));
      const warnedBefore = warnings().length;
      await ctx.onA.as(member, 'delete', `/api/v1/tokens/${await newestTokenId(member)}`).expect(204);
      await ctx.onB.withPat(pat, 'get', '/api/v1/apps').expect(401);
      // Counted as an instance that never answered, the monitor made each revocation wait out the receipts' second, then warn.
      expect(warnings()).toHaveLength(warnedBefore);
    } finally {
      monitor.disconnect();
    }
  });

  it('an Admin demoted on A: B refuses the next request to an Admin route', async () => {
    const member = await ctx.onA.member('Admin');
    await ctx.onB.as(member, 'get', '/api/v1/team/members').expect(200);
    await ctx.onA.as(ctx.admin, 'patch', `/api/v1/team/members/${member.id}`).send({ role: 'Viewer' }).expect(200);
    await ctx.onB.as(member, 'get', '/api/v1/team/members').expect(403);
  });

  it('a member deactivated through SCIM on A: B answers their cookie and PAT 401 at once', async () => {
    const scimToken = (await ctx.onA.as(ctx.admin, 'post', '/api/v1/scim/tokens').send({ name: 'idp' }).expect(201)).body.token;
    const leaver = await ctx.onA.member('QA', 'cache-leaver@corp.example');
    const pat = await ctx.onA.pat(leaver, 'view');
    await ctx.onB.as(leaver, 'get', '/api/v1/apps').expect(200);
    await ctx.onB.withPat(pat, 'get', '/api/v1/apps').expect(200);
    await scimDeactivate(ctx.a, scimToken, leaver.id).expect(200);
    await ctx.onB.as(leaver, 'get', '/api/v1/apps').expect(401);
    await ctx.onB.withPat(pat, 'get', '/api/v1/apps').expect(401);
  });

  it('signed out on A: B answers that cookie 401 at once', async () => {
    const member = await ctx.onA.member('QA');
    await ctx.onB.as(member, 'get', '/api/v1/apps').expect(200);
    await ctx.a.http().post('/api/v1/auth/logout').set('Cookie', member.cookie).expect(200);
    await ctx.onB.as(member, 'get', '/api/v1/apps').expect(401);
  });

  it("a PAT used on B: A's GET /tokens shows the use once B has flushed (every few seconds)", async () => {
    const member = await ctx.onA.member('QA');
    const pat = await ctx.onA.pat(member, 'view');
    const id = await newestTokenId(member);
    const lastUsed = async () => (await ctx.onA.as(member, 'get', '/api/v1/tokens').expect(200)).body.find((t: { id: number }) => t.id === id);
    const before = await lastUsed();
    ctx.b.clock.advance(1_000);
    await ctx.onB.withPat(pat, 'get', '/api/v1/apps').expect(200);
    expect((await lastUsed()).last_used_at).toBe(before.created_at);
    await ctx.b.app.get(TokenLastUse).flush();
    expect(Date.parse((await lastUsed()).last_used_at)).toBeGreaterThan(Date.parse(before.created_at));
  });

  it('an instance shut down writes the uses it recorded before it stops', async () => {
    const member = await ctx.onA.member('QA');
    const pat = await ctx.onA.pat(member, 'view');
    const id = await newestTokenId(member);
    const c = await startTestRelay(ctx.cluster.env);
    try {
      c.clock.advance(1_000);
      await new MemberFactory(c).withPat(pat, 'get', '/api/v1/apps').expect(200);
    } finally {
      await c.close();
    }
    const [listed] = ((await ctx.onA.as(member, 'get', '/api/v1/tokens').expect(200)).body as { id: number; last_used_at: string; created_at: string }[]).filter((t) => t.id === id);
    expect(Date.parse(listed.last_used_at)).toBeGreaterThan(Date.parse(listed.created_at));
  });
});

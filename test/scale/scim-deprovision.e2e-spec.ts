import { TestPeer } from '../agents/agent-kit';
import { within } from '../support/deadline';
import { describeUnless } from '../support/describe-unless';
import { PG_ADMIN_URL, REDIS_URL, unreachable } from '../support/reachable';
import { scimDeactivate } from '../support/scim';
import { SseClient } from '../support/sse-client';
import { useTwoInstances } from './cluster-env';

/**
 * Issue 26 item 4 across instances: the identity provider deactivates a member through instance B,
 * and what the member holds on instance A (an agent connected with their PAT, the dashboard's
 * live-event stream on their cookie) ends, through the cluster bus: A holds no other cause to close them.
 */
describeUnless(unreachable([PG_ADMIN_URL, REDIS_URL]), 'SCIM deprovisioning on two instances (PostgreSQL + Redis)', () => {
  const ctx = useTwoInstances();

  it('deactivating through B closes the member’s agent socket (4003) and event stream on A', async () => {
    const scimToken = (await ctx.onA.as(ctx.admin, 'post', '/api/v1/scim/tokens').send({ name: 'idp' }).expect(201)).body.token;
    const leaver = await ctx.onA.member('Admin', 'leaver@corp.example');
    const agent = await TestPeer.agent(ctx.a, await ctx.onA.pat(leaver, 'agent'), 'leaver-agent-on-a');
    const stream = await SseClient.connect(ctx.a.url, { Cookie: leaver.cookie });

    await scimDeactivate(ctx.b, scimToken, leaver.id).expect(200);
    // Waited for, not timed: without the bus A never closes them, which the deadline tells apart.
    expect(await within('the agent socket on A', agent.closed)).toEqual({ code: 4003, reason: expect.any(String) });
    await within('the event stream on A', stream.ended);
    await ctx.a.http().get('/api/v1/auth/me').set('Cookie', leaver.cookie).expect(401);
  });
});

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { AgentDaemon } from '../../src/agent-daemon/agent-daemon';
import { agentToken, startFakeAgent, TestPeer, wsUrl } from '../agents/agent-kit';
import { useTestRelay } from '../support/use-relay';
import { auditEntries } from './audit-support';

/** Device actions reach the agent through the device-session socket from the dashboard (cookie), scripts (PAT) and MCP. */
describe('audit log: device actions from the dashboard, PAT clients and MCP', () => {
  const ctx = useTestRelay();
  let agent: AgentDaemon;
  const session = 'fake-android-audit-lab';

  beforeAll(async () => {
    agent = await startFakeAgent(ctx.relay, await agentToken(ctx.members), 'audit-lab');
  });
  afterAll(() => agent.stop());

  async function request(headers: Record<string, string>, method: string, params: Record<string, unknown>): Promise<unknown> {
    const peer = new TestPeer(wsUrl(ctx.relay, `/api/v1/sessions/${session}/connect`), headers);
    await peer.opened;
    peer.send({ type: 'request', id: 1, method, params });
    // Events about the session (tapped, …) may come first: the answer is the response.
    for (;;) {
      const frame = (await peer.next()) as { json?: { type?: string }; isBinary?: boolean };
      if (frame.isBinary || frame.json?.type === 'response') {
        peer.close();
        return frame.json ?? { binary: true };
      }
    }
  }

  it('records taps, typing and launches with actor, how and outcome; never the typed text; not screenshots', async () => {
    const admin = await ctx.members.admin();
    const qa = await ctx.members.member('QA');
    const pat = await ctx.members.pat(qa, 'view');
    expect(await request({ Cookie: qa.cookie, Origin: ctx.relay.url }, 'tap', { x: 0.25, y: 0.75 })).toMatchObject({ ok: true });
    expect(await request({ Authorization: `Bearer ${pat}` }, 'type_text', { text: 'hunter2 secret' })).toMatchObject({ ok: true });
    await request({ Authorization: `Bearer ${pat}` }, 'screenshot', { format: 'png' });

    const tap = await auditEntries(ctx, admin, 'action=device.tap');
    expect(tap).toHaveLength(1);
    expect(tap[0]).toMatchObject({
      actor_id: qa.id,
      via: 'cookie',
      target: `session:${session}`,
      client_address: '127.0.0.1',
      details: { method: 'tap', x: 0.25, y: 0.75, outcome: 'ok' },
    });
    const typed = await auditEntries(ctx, admin, 'action=device.type_text');
    expect(typed[0]).toMatchObject({ via: 'pat', details: { text_length: 14, outcome: 'ok' } });
    expect(JSON.stringify(typed)).not.toContain('hunter2');
    expect(await auditEntries(ctx, admin, 'action=device.screenshot')).toEqual([]);
  });

  it('records the agent connecting, as its token\'s member via agent', async () => {
    const admin = await ctx.members.admin();
    const connected = await auditEntries(ctx, admin, 'action=agent.connected&target=agent:audit-lab');
    expect(connected).toHaveLength(1);
    expect(connected[0]).toMatchObject({ actor_id: admin.id, via: 'agent', client_address: '127.0.0.1', details: { replaced: false } });
  });

  it('says mcp for the MCP tools, through the Streamable HTTP endpoint', async () => {
    const admin = await ctx.members.admin();
    const dev = await ctx.members.member('Developer');
    const client = new Client({ name: 'audit-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${ctx.relay.url}/api/v1/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${await ctx.members.pat(dev, 'view')}` } },
      }),
    );
    try {
      const result = await client.callTool({ name: 'press_button', arguments: { session_id: session, button: 'home' } });
      expect(result.isError).toBeFalsy();
    } finally {
      await client.close();
    }
    const pressed = await auditEntries(ctx, admin, `action=device.press_button&actor=${dev.id}`);
    expect(pressed).toHaveLength(1);
    expect(pressed[0]).toMatchObject({ via: 'mcp', details: { button: 'home', outcome: 'ok' } });
  });
});

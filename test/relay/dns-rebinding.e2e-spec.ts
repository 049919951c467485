import { ErrorMessages } from '../../src/common/errors/error-messages';
import { agentToken, device, TestPeer, upgradeRefusal, wsUrl } from '../agents/agent-kit';
import { TEST_PASSWORD } from '../support/factory';
import { useTestRelay } from '../support/use-relay';

/**
 * DNS rebinding (issue 16 item 2): a page on evil.example, opened in a browser on the relay host,
 * rebinds its name to 127.0.0.1. Its requests then come from loopback, and are "same-origin" with
 * themselves (`Origin: http://evil.example:<port>`, `Host: evil.example:<port>`). Only the Host
 * header tells them apart; relay-host-only behaviour and the Origin rule must check it.
 */
describe('DNS rebinding: a Host that does not name this machine', () => {
  const ctx = useTestRelay({ SVC_RELAY_URL: 'https://relay.example.com' });
  const evilHost = () => `evil.example:${ctx.relay.port}`;
  const evilOrigin = () => `http://${evilHost()}`;

  it('before setup: canInitialize is false and /auth/init is 403, even "same-origin"', async () => {
    const status = await ctx.relay.http().get('/api/v1/auth/status').set('Host', evilHost()).expect(200);
    expect(status.body).toEqual({ initialized: false, canInitialize: false });

    for (const headers of [{ Host: evilHost() }, { Host: evilHost(), Origin: evilOrigin() }]) {
      const init = await ctx.relay
        .http()
        .post('/api/v1/auth/init')
        .set(headers)
        .send({ email: 'intruder@example.com', password: TEST_PASSWORD });
      expect(init.status).toBe(403);
      expect(init.body.error).toMatch(/svc admin init|Cross-site request refused/);
    }
    expect((await ctx.relay.http().get('/api/v1/auth/status').expect(200)).body).toEqual({
      initialized: false,
      canInitialize: true,
    });
  });

  it('/logs is 403 for a foreign Host, with or without port', async () => {
    for (const host of [evilHost(), 'evil.example', '127.0.0.1.nip.io', 'localhost.evil.example']) {
      const logs = await ctx.relay.http().get('/api/v1/logs').set('Host', host);
      expect({ host, status: logs.status, body: logs.body }).toEqual({
        host,
        status: 403,
        body: { error: ErrorMessages.logsNotFromHost },
      });
    }
  });

  it('names of this machine keep working: localhost, loopback addresses, the relay.url host, any port', async () => {
    for (const host of ['localhost', `localhost:${ctx.relay.port}`, '127.0.0.1', `[::1]:${ctx.relay.port}`, 'LOCALHOST', 'relay.example.com']) {
      const logs = await ctx.relay.http().get('/api/v1/logs').set('Host', host);
      expect({ host, status: logs.status }).toEqual({ host, status: 200 });
    }
  });

  it('the Origin rule trusts the request’s own Host only when it names this machine', async () => {
    await ctx.members.admin(); // admin@example.com
    const login = (headers: Record<string, string>) =>
      ctx.relay.http().post('/api/v1/auth/login').set(headers).send({ email: 'admin@example.com', password: TEST_PASSWORD });

    const rebound = await login({ Host: evilHost(), Origin: evilOrigin() });
    expect(rebound.status).toBe(403);
    expect(rebound.body).toEqual({ error: ErrorMessages.crossSite });

    expect((await login({ Host: `localhost:${ctx.relay.port}`, Origin: `http://localhost:${ctx.relay.port}` })).status).toBe(200);
    expect((await login({ Host: `relay.example.com`, Origin: 'https://relay.example.com' })).status).toBe(200);
    // no browser headers at all (curl, CI): unchanged, whatever the Host
    expect((await login({ Host: evilHost() })).status).toBe(200);

    const cookie = await ctx.members.login('admin@example.com');
    const write = await ctx.relay
      .http()
      .post('/api/v1/tokens')
      .set({ Cookie: cookie, Host: evilHost(), Origin: evilOrigin() })
      .send({ name: 'rebound' });
    expect(write.status).toBe(403);
    expect(write.body).toEqual({ error: ErrorMessages.crossSite });
  });

  it('a cookie-authenticated device-session upgrade from a rebound page is refused', async () => {
    const member = await ctx.members.member('QA');
    const agent = await TestPeer.agent(ctx.relay, await agentToken(ctx.members), 'rebinding');
    await agent.announce(ctx.relay, [device('rebind-1')]);
    const url = wsUrl(ctx.relay, '/api/v1/sessions/rebind-1/connect');

    expect(await upgradeRefusal(url, { Cookie: member.cookie, Host: evilHost(), Origin: evilOrigin() })).toEqual({
      status: 403,
      body: { error: ErrorMessages.crossSite },
    });
    const own = new TestPeer(url, { Cookie: member.cookie, Origin: ctx.relay.url });
    await own.opened;
    own.close();
    agent.close();
  });
});

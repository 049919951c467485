import { ErrorMessages } from '../../src/common/errors/error-messages';
import { MemberFactory, TEST_PASSWORD, TestMember } from '../support/factory';
import { RemoteClient } from '../support/netns';
import { describeUnless } from '../support/describe-unless';
import { startTestRelay, TestRelay } from '../support/test-relay';

/**
 * A real second machine: requests from a network namespace (10.231.x.2) reach the relay over a
 * veth pair. Without CAP_NET_ADMIN these tests are reported as skipped, with the reason, never passed.
 */
const unavailable = RemoteClient.unavailableReason();

describeUnless(unavailable, 'requests from another machine (network namespace)', () => {
  let remote: RemoteClient;
  let relay: TestRelay;
  let members: MemberFactory;
  let base: string;

  beforeAll(async () => {
    remote = RemoteClient.create();
    relay = await startTestRelay({ SVC_HOST: '0.0.0.0' });
    members = new MemberFactory(relay);
    base = `http://${remote.hostAddress}:${relay.port}`;
  });
  afterAll(async () => {
    await relay?.close();
    remote?.destroy();
  });

  it('before any account: canInitialize is false remotely, init is 403 naming `svc admin init`', async () => {
    const status = await remote.request('GET', `${base}/api/v1/auth/status`);
    expect(status.status).toBe(200);
    expect(status.body).toEqual({ initialized: false, canInitialize: false });

    const init = await remote.request('POST', `${base}/api/v1/auth/init`, {
      body: { email: 'intruder@example.com', password: TEST_PASSWORD },
    });
    expect(init.status).toBe(403);
    expect(init.body).toEqual({ error: ErrorMessages.initNotFromHost });
    expect((init.body as { error: string }).error).toContain('svc admin init');

    // the same relay, asked from this machine, may be initialised
    expect((await relay.http().get('/api/v1/auth/status')).body).toEqual({ initialized: false, canInitialize: true });
  });

  it.each([
    ['X-Forwarded-For: 127.0.0.1', { 'X-Forwarded-For': '127.0.0.1' }],
    ['X-Real-IP: 127.0.0.1', { 'X-Real-IP': '127.0.0.1' }],
    ['Forwarded: for=127.0.0.1', { Forwarded: 'for=127.0.0.1' }],
    ['Host: localhost', { Host: 'localhost' }],
    ['Host: 127.0.0.1', { Host: '127.0.0.1' }],
    ['Origin: http://localhost', { Origin: 'http://localhost' }],
  ])('spoofing with %s does not make the remote client local', async (_name, headers) => {
    const logs = await remote.request('GET', `${base}/api/v1/logs`, { headers });
    expect(logs.status).toBe(403);
    expect(logs.body).toEqual({ error: ErrorMessages.logsNotFromHost });
    const status = await remote.request('GET', `${base}/api/v1/auth/status`, { headers });
    expect((status.body as { canInitialize: boolean }).canInitialize).toBe(false);
  });

  it('this machine reaching its own non-loopback address is the relay host', async () => {
    const res = await fetch(`${base}/api/v1/logs?lines=1`);
    expect(res.status).toBe(200);
    expect(await res.json()).toHaveLength(1);
  });

  describe.each(['true', '1', '10.231.0.0/16'])('behind SVC_TRUST_PROXY=%s (issue 16 item 1)', (trustProxy) => {
    let proxied: TestRelay;
    let proxiedBase: string;
    beforeAll(async () => {
      proxied = await startTestRelay({ SVC_HOST: '0.0.0.0', SVC_TRUST_PROXY: trustProxy });
      proxiedBase = `http://${remote.hostAddress}:${proxied.port}`;
    });
    afterAll(() => proxied?.close());

    it('a remote client connecting directly with X-Forwarded-For: 127.0.0.1 is not the relay host', async () => {
      for (const forged of ['127.0.0.1', '::1', `127.0.0.1, ${remote.hostAddress}`]) {
        const headers = { 'X-Forwarded-For': forged };
        const logs = await remote.request('GET', `${proxiedBase}/api/v1/logs`, { headers });
        expect({ forged, status: logs.status, body: logs.body }).toEqual({
          forged,
          status: 403,
          body: { error: ErrorMessages.logsNotFromHost },
        });
        const status = await remote.request('GET', `${proxiedBase}/api/v1/auth/status`, { headers });
        expect(status.body).toEqual({ initialized: false, canInitialize: false });
        const init = await remote.request('POST', `${proxiedBase}/api/v1/auth/init`, {
          headers,
          body: { email: 'intruder@example.com', password: TEST_PASSWORD },
        });
        expect(init.status).toBe(403);
        expect(init.body).toEqual({ error: ErrorMessages.initNotFromHost });
      }
      expect((await proxied.http().get('/api/v1/auth/status')).body).toEqual({ initialized: false, canInitialize: true });
    });
  });

  describe('after initialisation', () => {
    let admin: TestMember;
    beforeAll(async () => {
      admin = await members.admin();
    });

    it('init from the remote machine is 403 Already initialized (the account state wins over the host rule)', async () => {
      const init = await remote.request('POST', `${base}/api/v1/auth/init`, {
        body: { email: 'late@example.com', password: TEST_PASSWORD },
      });
      expect(init.status).toBe(403);
      expect(init.body).toEqual({ error: ErrorMessages.alreadyInitialized });
    });

    it('/logs is 403 remotely even with an Admin cookie; the cookie works for everything else', async () => {
      const logs = await remote.request('GET', `${base}/api/v1/logs`, { headers: { Cookie: admin.cookie } });
      expect(logs.status).toBe(403);
      expect(logs.body).toEqual({ error: ErrorMessages.logsNotFromHost });
      const me = await remote.request('GET', `${base}/api/v1/auth/me`, { headers: { Cookie: admin.cookie } });
      expect(me.status).toBe(200);
      expect((me.body as { email: string }).email).toBe(admin.email);
    });

    it('a remote member signs in; throttling there does not lock out the same e-mail from elsewhere', async () => {
      const member = await members.member('QA');
      const login = (password: string) =>
        remote.request('POST', `${base}/api/v1/auth/login`, { body: { email: member.email, password } });
      expect((await login(TEST_PASSWORD)).status).toBe(200);
      for (let i = 0; i < 5; i++) expect((await login('wrong password')).status).toBe(401);
      const blocked = await login(TEST_PASSWORD);
      expect(blocked.status).toBe(429);
      expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
      // the loopback client is another (address, e-mail) pair: no global lockout
      await relay.http().post('/api/v1/auth/login').send({ email: member.email, password: TEST_PASSWORD }).expect(200);
    });

    it('the request log records the remote address', async () => {
      await remote.request('GET', `${base}/api/v1/auth/status`);
      const lines = relay.logger.buffer.tail(500).join('\n');
      expect(lines).toContain(`GET /api/v1/auth/status 200`);
      expect(lines).toContain(remote.peerAddress);
    });
  });
});

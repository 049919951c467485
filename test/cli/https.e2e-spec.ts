import request from 'supertest';
import WebSocket from 'ws';
import { TEST_PASSWORD, sessionCookieFrom } from '../support/factory';
import { startTestRelay, TestRelay } from '../support/test-relay';
import { runCli, CLI_TEST_TIMEOUT_MS } from './cli-process';
import { selfSignedCert } from './self-signed-cert';

jest.setTimeout(CLI_TEST_TIMEOUT_MS);

/** SVC_TLS_CERT/SVC_TLS_KEY: the relay serves HTTPS itself (certificate made by openssl here). */
describe('HTTPS with SVC_TLS_CERT / SVC_TLS_KEY', () => {
  let relay: TestRelay;
  let url: string;
  let tls: ReturnType<typeof selfSignedCert>;
  beforeAll(async () => {
    tls = selfSignedCert();
    relay = await startTestRelay({ SVC_TLS_CERT: tls.cert, SVC_TLS_KEY: tls.key });
    url = `https://127.0.0.1:${relay.port}`;
    await request(url).post('/api/v1/auth/init').disableTLSCerts().send({ email: 'admin@example.com', password: TEST_PASSWORD }).expect(201);
  });
  afterAll(() => relay.close());

  const https = () => request(url);

  it('serves HTTPS (plain HTTP is refused) and the session cookie is Secure', async () => {
    await expect(request(`http://127.0.0.1:${relay.port}`).get('/api/v1/health')).rejects.toThrow();
    await https().get('/api/v1/health').disableTLSCerts().expect(200);
    const login = await https()
      .post('/api/v1/auth/login')
      .disableTLSCerts()
      .send({ email: 'admin@example.com', password: TEST_PASSWORD })
      .expect(200);
    const cookie = [login.headers['set-cookie']].flat().find((c: string) => c.startsWith('svc_token='))!;
    expect(cookie).toMatch(/;\s*Secure/i);
    expect(cookie).toMatch(/;\s*HttpOnly/i);
    const host = await https().get('/api/v1/relay/host').disableTLSCerts().set('Cookie', sessionCookieFrom(cookie)).expect(200);
    if (host.body.agentRelayUrl) expect(host.body.agentRelayUrl).toMatch(/^wss:\/\//);
  });

  it('WebSockets run over TLS (wss) on the same port', async () => {
    const login = await https().post('/api/v1/auth/login').disableTLSCerts().send({ email: 'admin@example.com', password: TEST_PASSWORD }).expect(200);
    const token = await https()
      .post('/api/v1/tokens')
      .disableTLSCerts()
      .set('Cookie', sessionCookieFrom(login.headers['set-cookie']))
      .send({ name: 'agent', scope: 'agent' })
      .expect(201);
    const outcome = await new Promise<string>((resolve) => {
      const socket = new WebSocket(`wss://127.0.0.1:${relay.port}/api/v1/agent/connect`, {
        headers: { Authorization: `Bearer ${token.body.token}`, 'X-Svc-Agent-Name': 'tls-check' },
        rejectUnauthorized: false,
      });
      socket.on('open', () => {
        socket.close();
        resolve('open');
      });
      socket.on('unexpected-response', (_req, res) => resolve(`http ${res.statusCode}`));
      socket.on('error', (err) => resolve(`error ${err.message}`));
    });
    expect(outcome).toBe('open');
  });

  it('the CLI trusts the relay\'s certificate through NODE_EXTRA_CA_CERTS, and refuses it otherwise', async () => {
    const untrusted = await runCli(['apps', 'list'], { env: { SVC_URL: url, SVC_TOKEN: 'svc_pat_x' } });
    expect(untrusted.code).toBe(1);
    expect(untrusted.stderr).toMatch(/^svc: Cannot reach the relay at https:\/\/127\.0\.0\.1:\d+: .*(SELF_SIGNED|CERT)/);
    const trusted = await runCli(['apps', 'list'], { env: { SVC_URL: url, SVC_TOKEN: 'svc_pat_x', NODE_EXTRA_CA_CERTS: tls.cert } });
    expect(trusted.code).toBe(1);
    expect(trusted.stderr).toMatch(/^svc: (Unauthorized|Not found)\n/); // the relay's own answer, over TLS (then the CLI's hint)
  });
});

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { sessionCookieFrom, TEST_PASSWORD } from '../support/factory';
import { emptyDir, runCli, RunningCli, spawnCli, CLI_TEST_TIMEOUT_MS } from './cli-process';
import { selfSignedCert } from './self-signed-cert';
import { FAKE_CLOUDFLARE_URL, FAKE_NGROK_URL, FAKE_TAILSCALE_NAME, FakeTool, fakeToolsDir, pathWith } from './fake-tools';

jest.setTimeout(CLI_TEST_TIMEOUT_MS);

/** `svc relay` as an operator runs it, with fake tunnel programs on PATH; host details read over HTTP. */
describe('svc relay and tunnels', () => {
  const running: RunningCli[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((r) => r.stop()));
  });

  async function startRelay(tools: FakeTool[], args: string[], env: Record<string, string> = {}) {
    const bin = fakeToolsDir(tools);
    const relay = new RunningCli(
      spawnCli(['relay', '--port', '0', '--host', '127.0.0.1', '--data-dir', emptyDir(), ...args], {
        env: { PATH: pathWith(bin), SVC_LOG_LEVEL: 'warn', ...env },
      }),
    );
    running.push(relay);
    const [, url] = await relay.waitFor(/^svc relay listening on (https?:\/\/127\.0\.0\.1:\d+)/);
    return { relay, url, bin };
  }

  /** Signs in as the first Admin (created through /auth/init from loopback) and reads /relay/host. */
  async function hostDetails(url: string) {
    // The relay may serve a self-signed certificate made by this test.
    const post = (path: string) => request(url).post(path).disableTLSCerts();
    await post('/api/v1/auth/init').send({ email: 'admin@example.com', password: TEST_PASSWORD }).expect(201);
    const login = await post('/api/v1/auth/login').send({ email: 'admin@example.com', password: TEST_PASSWORD }).expect(200);
    const res = await request(url)
      .get('/api/v1/relay/host')
      .disableTLSCerts()
      .set('Cookie', sessionCookieFrom(login.headers['set-cookie']))
      .expect(200);
    return res.body as { publicBaseUrl: string | null; agentRelayUrl: string | null; port: number };
  }

  it('--tunnel cloudflared: the quick tunnel URL becomes publicBaseUrl and agentRelayUrl', async () => {
    const { relay, url, bin } = await startRelay(['cloudflared'], ['--tunnel', 'cloudflared']);
    await relay.waitFor(/^Public URL: /);
    expect(relay.lines).toContain(`Public URL: ${FAKE_CLOUDFLARE_URL}`);
    const details = await hostDetails(url);
    expect(details.publicBaseUrl).toBe(FAKE_CLOUDFLARE_URL);
    expect(details.agentRelayUrl).toBe('wss://gentle-fox-river-lamp.trycloudflare.com/api/v1/agent/connect');
    const port = new URL(url).port;
    expect(JSON.parse(readFileSync(join(bin, 'cloudflared.args'), 'utf8'))).toEqual([
      'tunnel',
      '--no-autoupdate',
      '--url',
      `http://127.0.0.1:${port}`,
    ]);
  });

  it('--tunnel ngrok: reads the "started tunnel" record of ngrok\'s JSON log', async () => {
    const { relay, url, bin } = await startRelay(['ngrok'], ['--tunnel', 'ngrok']);
    await relay.waitFor(/^Public URL: /);
    expect((await hostDetails(url)).publicBaseUrl).toBe(FAKE_NGROK_URL);
    const args = JSON.parse(readFileSync(join(bin, 'ngrok.args'), 'utf8'));
    expect(args.slice(0, 2)).toEqual(['http', `http://127.0.0.1:${new URL(url).port}`]);
  });

  it('stopping svc relay stops the tunnel program too', async () => {
    const { relay } = await startRelay(['cloudflared'], ['--tunnel', 'cloudflared']);
    await relay.waitFor(/^Public URL: /);
    const tunnelPids = () =>
      execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(relay.child.pid)], { encoding: 'utf8' })
        .split('\n')
        .filter((l) => l.includes('cloudflared'));
    expect(tunnelPids()).toHaveLength(1);
    const pid = Number(tunnelPids()[0].trim().split(/\s+/)[0]);
    await relay.stop();
    // A graceful stop (bootstrap/graceful-shutdown.ts) ends with exit code 0, not by the signal.
    expect(relay.child.signalCode ?? relay.child.exitCode).toBe(0);
    await new Promise((r) => setTimeout(r, 200));
    expect(isRunning(pid)).toBe(false);
  });

  it('HTTPS relay: an http:// tunnel address is not used; the Tailscale name is, with https', async () => {
    const tls = selfSignedCert();
    const { relay, url } = await startRelay(['ngrok', 'tailscale'], ['--tunnel', 'ngrok'], {
      SVC_TLS_CERT: tls.cert,
      SVC_TLS_KEY: tls.key,
      FAKE_NGROK_URL: 'http://1a2b-203-0-113-7.ngrok.io',
    });
    await relay.waitFor(/^Public URL: /);
    expect(url.startsWith('https://')).toBe(true);
    const port = new URL(url).port;
    expect(relay.lines.some((l) => l.startsWith('Not using http://1a2b-203-0-113-7.ngrok.io'))).toBe(true);
    const details = await hostDetails(url);
    expect(details.publicBaseUrl).toBe(`https://${FAKE_TAILSCALE_NAME}:${port}`);
    expect(details.agentRelayUrl).toBe(`wss://${FAKE_TAILSCALE_NAME}:${port}/api/v1/agent/connect`);
  });

  it('HTTPS relay with only an http:// tunnel: no public URL, links fall back to SVC_RELAY_URL', async () => {
    const tls = selfSignedCert();
    const { relay, url } = await startRelay(['ngrok'], ['--tunnel', 'ngrok'], {
      SVC_TLS_CERT: tls.cert,
      SVC_TLS_KEY: tls.key,
      FAKE_NGROK_URL: 'http://1a2b-203-0-113-7.ngrok.io',
      SVC_RELAY_URL: 'https://relay.example.com',
    });
    await relay.waitFor(/^No usable public URL/);
    expect((await hostDetails(url)).publicBaseUrl).toBe('https://relay.example.com');
  });

  it('standalone svc relay uses only SVC_RELAY_URL, even with Tailscale up', async () => {
    const { url, bin } = await startRelay(['tailscale'], [], { SVC_RELAY_URL: 'https://relay.example.com' });
    expect((await hostDetails(url)).publicBaseUrl).toBe('https://relay.example.com');
    expect(() => readFileSync(join(bin, 'tailscale.args'))).toThrow(); // never even asked
  });

  it('--tunnel tailscale uses the MagicDNS name; stopped Tailscale is a clear error', async () => {
    const { relay, url } = await startRelay(['tailscale'], ['--tunnel', 'tailscale']);
    await relay.waitFor(/^Public URL: /);
    expect((await hostDetails(url)).publicBaseUrl).toBe(`http://${FAKE_TAILSCALE_NAME}:${new URL(url).port}`);

    const bin = fakeToolsDir(['tailscale']);
    const stopped = await runCli(['relay', '--port', '0', '--host', '127.0.0.1', '--data-dir', emptyDir(), '--tunnel', 'tailscale'], {
      env: { PATH: pathWith(bin), FAKE_TAILSCALE_STATE: 'Stopped', SVC_LOG_LEVEL: 'warn' },
    });
    expect(stopped.code).toBe(1);
    expect(stopped.stderr).toContain('run `tailscale up`');
  });

  it('a missing tunnel program is a clear error naming what to install (exit 1)', async () => {
    for (const program of ['cloudflared', 'ngrok']) {
      const result = await runCli(['relay', '--port', '0', '--data-dir', emptyDir(), '--tunnel', program], {
        env: { PATH: pathWith(fakeToolsDir([])) },
      });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`svc: ${program} is not installed (not found on PATH). Install ${program}`);
      expect(result.stdout).not.toContain('listening');
    }
  });

  it('a tunnel program that exits without a URL stops svc relay with its output', async () => {
    const result = await runCli(['relay', '--port', '0', '--host', '127.0.0.1', '--data-dir', emptyDir(), '--tunnel', 'ngrok'], {
      env: { PATH: pathWith(fakeToolsDir(['ngrok-no-authtoken'])), SVC_LOG_LEVEL: 'warn' },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('ngrok exited (code 1) before giving a public URL');
    expect(result.stderr).toContain('authtoken');
  });

  it('an unknown --tunnel value is a usage error (exit 2)', async () => {
    const result = await runCli(['relay', '--tunnel', 'frp']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("Allowed choices are cloudflared, ngrok, tailscale");
  });
});

/** True while the process runs; an exited one left unreaped (a zombie, state Z) is not running. */
function isRunning(pid: number): boolean {
  try {
    return !/State:\s+Z/.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}

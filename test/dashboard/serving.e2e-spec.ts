import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CSP_NONCE_PLACEHOLDER } from '../../src/dashboard/dashboard';
import { upgradeRefusal, wsUrl } from '../agents/agent-kit';
import { startTestRelay, TestRelay } from '../support/test-relay';

/** A stand-in for `vite build` output: the relay serves whatever web/dist holds. */
function fakeWebDist(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-web-dist-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(
    join(dir, 'index.html'),
    `<!doctype html><html><head><meta property="csp-nonce" nonce="${CSP_NONCE_PLACEHOLDER}">` +
      '<script type="module" src="/assets/index-AbC123.js"></script></head><body><div id="root"></div></body></html>',
  );
  writeFileSync(join(dir, 'assets', 'index-AbC123.js'), 'console.log("app")');
  writeFileSync(join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  return dir;
}

function expectDocumentHeaders(headers: Record<string, string>): void {
  expect(headers['content-type']).toMatch(/^text\/html/);
  expect(headers['cache-control']).toBe('no-store');
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['referrer-policy']).toBe('no-referrer');
  const csp = headers['content-security-policy'];
  expect(csp).toContain("script-src 'self'");
  expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).toContain("default-src 'self'");
}

describe('dashboard serving (web/dist)', () => {
  let relay: TestRelay;
  let webDir: string;

  beforeAll(async () => {
    webDir = fakeWebDist();
    relay = await startTestRelay({ SVC_WEB_DIR: webDir });
  });
  afterAll(async () => {
    await relay.close();
    rmSync(webDir, { recursive: true, force: true });
  });

  it('serves index.html at / and at every client-side route, never cached, with the security headers', async () => {
    for (const path of ['/', '/builds', '/builds/12?status=Done', '/invite?token=abc', '/reset-password?token=abc', '/a/b/c']) {
      const res = await relay.http().get(path).expect(200);
      expect(res.text).toContain('<div id="root">');
      expectDocumentHeaders(res.headers);
    }
  });

  it('gives each response a fresh style nonce, in the page and in the CSP', async () => {
    const nonceOf = async () => {
      const res = await relay.http().get('/').expect(200);
      const nonce = /nonce="([^"]+)"/.exec(res.text)![1];
      expect(nonce).not.toBe(CSP_NONCE_PLACEHOLDER);
      expect(res.headers['content-security-policy']).toContain(`style-src 'self' 'nonce-${nonce}'`);
      return nonce;
    };
    expect(await nonceOf()).not.toBe(await nonceOf());
  });

  it('answers HEAD like GET, without a body', async () => {
    const res = await relay.http().head('/builds').expect(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.text ?? '').toBe('');
  });

  it('serves hashed assets for a year, immutable; other files revalidated', async () => {
    const asset = await relay.http().get('/assets/index-AbC123.js').expect(200);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(asset.headers['content-type']).toMatch(/javascript/);
    expect(asset.headers['x-content-type-options']).toBe('nosniff');
    const icon = await relay.http().get('/favicon.svg').expect(200);
    expect(icon.headers['cache-control']).toBe('no-cache');
  });

  it('keeps the JSON 404 for unknown API paths, stored files and missing files with an extension', async () => {
    for (const path of ['/api/v1/nope', '/api/nope', '/api', '/uploads/nope', '/assets/missing-123.js', '/robots.txt', '/index.html']) {
      const res = await relay.http().get(path);
      expect({ path, status: res.status, body: res.body }).toEqual({ path, status: expect.any(Number), body: { error: expect.any(String) } });
      expect(res.status === 404 || res.status === 401).toBe(true);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
    }
    expect((await relay.http().get('/api/v1/nope').expect(404)).body).toEqual({ error: 'Not found' });
  });

  it('leaves other methods to the API: POST to a dashboard route is a JSON 404', async () => {
    const res = await relay.http().post('/builds').send({}).expect(404);
    expect(res.body).toEqual({ error: 'Not found' });
  });

  it('leaves WebSocket paths alone: an upgrade without credentials is still the gateway\'s 401', async () => {
    expect(await upgradeRefusal(wsUrl(relay, '/api/v1/agent/connect'), { 'X-Svc-Agent-Name': 'a1' })).toEqual({
      status: 401,
      body: { error: 'Unauthorized' },
    });
  });

  it('serves the API as before', async () => {
    expect((await relay.http().get('/api/v1/auth/status').expect(200)).body).toEqual(expect.any(Object));
  });
});

describe('dashboard serving without a build', () => {
  let relay: TestRelay;

  beforeAll(async () => {
    relay = await startTestRelay({ SVC_WEB_DIR: join(tmpdir(), 'svc-no-such-web-dist') });
  });
  afterAll(() => relay.close());

  it('still runs, and / says clearly that the dashboard is not built (503)', async () => {
    const res = await relay.http().get('/').expect(503);
    expectDocumentHeaders(res.headers);
    expect(res.text).toContain('The dashboard is not built');
    expect(res.text).toContain('npm start');
    await relay.http().get('/api/v1/auth/status').expect(200);
    await relay.http().get('/api/v1/nope').expect(404);
    await relay.http().get('/assets/index-AbC123.js').expect(404);
  });
});

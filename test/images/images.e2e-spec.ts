import { request as httpRequest } from 'node:http';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { images } from '../support/images';
import { MemberFactory, TestMember } from '../support/factory';
import { startTestRelay, TestRelay } from '../support/test-relay';

/** Files under /uploads/ at the relay root: cookie or PAT(view), safe headers, nothing outside the folder. */
describe('/uploads', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  let qa: TestMember;
  let avatarUrl: string;

  beforeAll(async () => {
    relay = await startTestRelay();
    members = new MemberFactory(relay);
    qa = await members.member('QA');
    // A PNG/HTML polyglot: valid PNG signature, HTML after it.
    const polyglot = Buffer.concat([images.png(16), Buffer.from('<html><script>alert(1)</script></html>')]);
    await members.as(qa, 'patch', '/api/v1/profile').attach('avatar', polyglot, { filename: 'x.html', contentType: 'text/html' }).expect(200);
    avatarUrl = (await members.as(qa, 'get', '/api/v1/auth/me').expect(200)).body.avatarUrl;
    writeFileSync(join(relay.dataDir, 'secret.txt'), 'top secret');
  });
  afterAll(() => relay.close());

  it('serves with the sniffed type, nosniff, a sandboxing CSP and private caching', async () => {
    const res = await members.as(qa, 'get', avatarUrl).expect(200);
    expect(res.headers['content-type']).toBe('image/png');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toBe("default-src 'none'; sandbox");
    expect(res.headers['cache-control']).toMatch(/private/);
  });

  it('cookie or PAT(view): none 401, PAT without view 403, PAT(view) 200, revoked PAT 401', async () => {
    await relay.http().get(avatarUrl).expect(401);
    const writeOnly = await members.pat(qa, 'builds:write');
    expect((await members.withPat(writeOnly, 'get', avatarUrl).expect(403)).body).toEqual({ error: 'Insufficient scope' });
    const view = await members.pat(qa, 'view');
    await members.withPat(view, 'get', avatarUrl).expect(200);
    const viewer = await members.member('Viewer');
    await members.as(viewer, 'get', avatarUrl).expect(200);
    const tokens = (await members.as(qa, 'get', '/api/v1/tokens').expect(200)).body as Array<{ id: number; scope: string }>;
    for (const t of tokens) await members.as(qa, 'delete', `/api/v1/tokens/${t.id}`).expect(204);
    await members.withPat(view, 'get', avatarUrl).expect(401);
    await relay.http().get(avatarUrl).set('Authorization', 'Bearer svc_pat_forged').expect(401);
  });

  /** Raw HTTP so that paths reach the relay exactly as written (no client-side normalisation). */
  function rawGet(path: string): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port: relay.port, path, headers: { Cookie: qa.cookie } }, (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      });
      req.on('error', reject);
      req.end();
    });
  }

  it('no traversal, no listing, nothing but generated names', async () => {
    const attempts = [
      '/uploads/../secret.txt',
      '/uploads/..%2fsecret.txt',
      '/uploads/%2e%2e/secret.txt',
      '/uploads/%2e%2e/%2e%2e/etc/passwd',
      '/uploads/avatars/..%2f..%2fsecret.txt',
      '/uploads/avatars/..%2f..%2fsvc.sqlite',
      '/uploads/avatars/%5c..%5c..%5csecret.txt',
      '/uploads//etc/passwd',
      '/uploads/.env',
      '/uploads/',
      '/uploads/avatars',
      '/uploads/avatars/',
      `${avatarUrl}/`,
      `${avatarUrl}%00.png`,
      avatarUrl.replace('.png', '.html'),
      avatarUrl.replace('avatars', 'logos'),
      '/uploads/avatars/00000000000000000000000000000000.png',
    ];
    for (const path of attempts) {
      const res = await rawGet(path);
      expect({ path, ok: res.status === 404 || res.status === 400 }).toEqual({ path, ok: true });
      expect(res.body).not.toContain('top secret');
      expect(res.body).not.toContain('SQLite');
      expect(JSON.parse(res.body)).toEqual({ error: expect.any(String) });
    }
  });
});

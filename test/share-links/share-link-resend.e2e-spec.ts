import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { DataSource } from 'typeorm';
import { ShareLinkEntity } from '../../src/share-links/share-link.entity';
import { fixture } from '../support/build-fixtures';
import type { TestMember } from '../support/factory';
import { useTestRelay } from '../support/use-relay';

const PUBLIC_URL = 'https://relay.example.com';
const APK = 'string-label.apk';
const TOKEN_URL = /^https:\/\/relay\.example\.com\/install\/([0-9a-f]{64})$/;
const ANDROID_UA = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36';
const IPHONE_UA = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';

type Listed = { id: number; url: string | null; path: string | null; resendable: boolean; password: boolean; download_limit: number | null; downloads: number };

/** Issue 40 item 2: links a team can re-send, with a password and a download limit, on a richer install page. */
describe('share links a team can re-send (issue 40)', () => {
  const ctx = useTestRelay({ SVC_RELAY_URL: PUBLIC_URL, SVC_SECRETS_KEY: randomBytes(32).toString('base64') });
  let developer: TestMember;
  let viewer: TestMember;
  let buildId: number;

  beforeAll(async () => {
    developer = await ctx.members.member('Developer');
    viewer = await ctx.members.member('Viewer');
    const res = await ctx.members
      .as(developer, 'post', '/api/v1/builds')
      .field('label', 'feature/resend')
      .field('changelog', 'Sign-in screen\nTry <b>the</b> forgotten-password link')
      .attach('file', readFileSync(fixture(APK)), APK)
      .expect(201);
    buildId = res.body.id;
  });

  const http = () => ctx.relay.http();
  const create = (body: object = {}) => ctx.members.as(developer, 'post', `/api/v1/builds/${buildId}/share-links`).send(body).expect(201);
  const tokenOf = (url: string) => TOKEN_URL.exec(url)![1];
  const list = async (member: TestMember) =>
    (await ctx.members.as(member, 'get', `/api/v1/builds/${buildId}/share-links`).expect(200)).body as Listed[];
  const rowOf = (id: number) => ctx.relay.app.get(DataSource).getRepository(ShareLinkEntity).findOneByOrFail({ id });
  const unlock = (token: string, password?: string) => {
    const req = http().post(`/install/${token}`).type('form');
    return password === undefined ? req.send('') : req.send({ password });
  };
  const downloadHref = (html: string) => /href="([^"]*\/download[^"]*)"/.exec(html)![1].replace(/&#38;/g, '&');

  it('a writer lists a live link again with its url, which opens the install page; the row holds no clear token', async () => {
    const made = (await create()).body;
    const token = tokenOf(made.url);
    expect(made).toMatchObject({ resendable: true, password: false, download_limit: null });
    const listed = (await list(developer)).find((l) => l.id === made.id)!;
    expect(listed).toMatchObject({ url: made.url, path: `/install/${token}`, resendable: true });
    await http().get(new URL(listed.url!).pathname).expect(200);

    // Viewers cannot create links, so they never get one back either.
    expect((await list(viewer)).find((l) => l.id === made.id)).toMatchObject({ url: null, path: null, resendable: true });

    const row = await rowOf(made.id);
    expect(row.tokenSealed).toMatch(/^v1\./);
    const stored = JSON.stringify(await ctx.relay.app.get(DataSource).query('SELECT * FROM build_share_links WHERE id = $1'.replace('$1', String(made.id))));
    expect(stored).not.toContain(token);
  });

  it('a revoked link loses its url in the list', async () => {
    const made = (await create()).body;
    await ctx.members.as(developer, 'delete', `/api/v1/builds/${buildId}/share-links/${made.id}`).expect(204);
    expect((await list(developer)).find((l) => l.id === made.id)).toMatchObject({ url: null, path: null, revoked: true });
  });

  it('a link made before the migration (no sealed token) is listed without url: it can only be revoked', async () => {
    const made = (await create()).body;
    await ctx.relay.app.get(DataSource).getRepository(ShareLinkEntity).update({ id: made.id }, { tokenSealed: null });
    expect((await list(developer)).find((l) => l.id === made.id)).toMatchObject({ url: null, path: null, resendable: false, revoked: false });
  });

  it('a password: the page asks for it, refuses none or a wrong one, accepts the right one; the download needs the grant', async () => {
    const made = (await create({ password: 'open sesame' })).body;
    expect(made.password).toBe(true);
    const token = tokenOf(made.url);
    expect((await rowOf(made.id)).passwordHash).toMatch(/^\$2[aby]\$/);

    const locked = await http().get(`/install/${token}`).expect(200);
    expect(locked.text).toContain('This link needs a password');
    expect(locked.text).toContain('<form method="post"');
    expect(locked.text).not.toContain('Résumé Viewer');
    expect(locked.text).not.toContain('/download');
    await http().get(`/api/v1/share/${token}/download`).expect(401, { error: 'This share link needs its password: open it and enter the password' });

    for (const wrong of [undefined, 'open says me']) {
      const refused = await unlock(token, wrong).expect(401);
      expect(refused.text).toContain('Wrong password');
      expect(refused.text).not.toContain('/download');
    }
    const opened = await unlock(token, 'open sesame').expect(200);
    expect(opened.text).toContain('<h1>Résumé Viewer</h1>');
    const href = downloadHref(opened.text);
    expect(href).toMatch(new RegExp(`^/api/v1/share/${token}/download\\?grant=\\d+\\.[A-Za-z0-9_-]{43}$`));
    await http().get(href).expect(200);
    await http().get(`${href.slice(0, -1)}${href.endsWith('A') ? 'B' : 'A'}`).expect(401);
    // Another link's grant does not open this one.
    const other = tokenOf((await create({ password: 'open sesame' })).body.url);
    await http().get(href.replace(token, other)).expect(401);
  });

  it('wrong passwords are braked per address and link like sign-ins: 429 with Retry-After', async () => {
    const token = tokenOf((await create({ password: 'right one' })).body.url);
    for (let i = 0; i < 5; i++) await unlock(token, `guess ${i}`).expect(401);
    const braked = await unlock(token, 'guess 6').expect(429);
    expect(braked.headers['retry-after']).toMatch(/^\d+$/);
    expect(braked.text).toContain('Too many attempts');
    await unlock(token, 'right one').expect(429);
  });

  it('a download limit: counted from the first byte, 410 past it on the download and the page', async () => {
    const made = (await create({ download_limit: 2 })).body;
    expect(made.download_limit).toBe(2);
    const token = tokenOf(made.url);
    await http().get(`/api/v1/share/${token}/download`).expect(200);
    await http().get(`/api/v1/share/${token}/download`).set('Range', 'bytes=10-').expect(206);
    await http().get(`/api/v1/share/${token}/download`).expect(200);
    await http().get(`/api/v1/share/${token}/download`).expect(410, { error: 'This share link reached its download limit' });
    const page = await http().get(`/install/${token}`).expect(410);
    expect(page.text).toContain('This share link reached its download limit.');
    expect((await list(developer)).find((l) => l.id === made.id)).toMatchObject({ downloads: 2, url: null });
  });

  it('password and download_limit are validated, naming the field', async () => {
    for (const [body, error] of [
      [{ password: '' }, 'password must be a string of 1 to 200 characters'],
      [{ password: 'x'.repeat(201) }, 'password must be a string of 1 to 200 characters'],
      [{ password: 7 }, 'password must be a string of 1 to 200 characters'],
      [{ download_limit: 0 }, 'download_limit must be an integer from 1 to 10000'],
      [{ download_limit: 2.5 }, 'download_limit must be an integer from 1 to 10000'],
      [{ download_limit: 10001 }, 'download_limit must be an integer from 1 to 10000'],
    ] as const) {
      await ctx.members.as(developer, 'post', `/api/v1/builds/${buildId}/share-links`).send(body).expect(400, { error });
    }
  });

  it('the install page shows the team, what to test above the button, times for the visitor, and says when the phone cannot install it', async () => {
    const token = tokenOf((await create()).body.url);
    const android = await http().get(`/install/${token}`).set('User-Agent', ANDROID_UA).expect(200);
    expect(android.text).toContain('Shared by My team');
    expect(android.text).toContain('<h2 id="what-to-test">What to test</h2><p>Sign-in screen\nTry &#60;b&#62;the&#60;/b&#62; forgotten-password link</p>');
    expect(android.text.indexOf('What to test')).toBeLessThan(android.text.indexOf('class="button"'));
    expect(android.text).toMatch(/<time datetime="\d{4}-\d\d-\d\dT[^"]+Z">\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC<\/time>/);
    expect(android.text).not.toContain('cannot install');
    const iphone = await http().get(`/install/${token}`).set('User-Agent', IPHONE_UA).expect(200);
    expect(iphone.text).toContain('<p class="cannot" role="note">This iPhone or iPad cannot install this build: it is an Android app (APK).</p>');
    const script = await http().get('/install/script/local-times.js').expect(200);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.text).toContain("querySelectorAll('time[datetime]')");
  });
});

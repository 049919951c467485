import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { DataSource } from 'typeorm';
import { BuildRetentionService } from '../../src/builds/build-retention.service';
import { DAY_MS } from '../../src/common/time';
import { ShareLinkEntity } from '../../src/share-links/share-link.entity';
import { fixture } from '../support/build-fixtures';
import { rawBody } from '../support/raw-body';
import type { TestMember } from '../support/factory';
import { useTestRelay } from '../support/use-relay';
import { zipOf } from '../support/zip-file';

const PUBLIC_URL = 'https://relay.example.com';
const APK = 'string-label.apk';
const TOKEN_URL = /^https:\/\/relay\.example\.com\/install\/([0-9a-f]{64})$/;

/** A simulator build whose display name is hostile HTML (the name comes from the archive). */
function hostileAppZip(displayName: string): Buffer {
  const xml = displayName.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const plist = `<?xml version="1.0" encoding="UTF-8"?>
<plist version="1.0"><dict>
<key>CFBundleIdentifier</key><string>com.example.hostile</string>
<key>CFBundleDisplayName</key><string>${xml}</string>
<key>CFBundleShortVersionString</key><string>1.0</string>
<key>CFBundleVersion</key><string>3</string>
<key>CFBundlePackageType</key><string>APPL</string>
</dict></plist>
`;
  return zipOf([
    { name: 'Hostile.app/', data: Buffer.alloc(0) },
    { name: 'Hostile.app/Info.plist', data: Buffer.from(plist, 'utf8') },
  ]);
}

/** Issue 24 item 1: share links of a build, made by writers, opened by anyone holding one. */
describe('share links', () => {
  const ctx = useTestRelay({ SVC_RELAY_URL: PUBLIC_URL });
  let developer: TestMember;
  let viewer: TestMember;
  let buildId: number;

  beforeAll(async () => {
    developer = await ctx.members.member('Developer');
    viewer = await ctx.members.member('Viewer');
    const res = await ctx.members
      .as(developer, 'post', '/api/v1/builds')
      .field('label', 'feature/share')
      .attach('file', readFileSync(fixture(APK)), APK)
      .expect(201);
    buildId = res.body.id;
  });

  const http = () => ctx.relay.http();
  const create = (member: TestMember, body: object = {}, id = buildId) =>
    ctx.members.as(member, 'post', `/api/v1/builds/${id}/share-links`).send(body);
  const tokenOf = (url: string) => TOKEN_URL.exec(url)![1];
  const list = async (member: TestMember = viewer, id = buildId) =>
    (await ctx.members.as(member, 'get', `/api/v1/builds/${id}/share-links`).expect(200)).body as { id: number; downloads: number; revoked: boolean }[];

  it('a writer creates a link on the public URL, valid 7 days by default; the token is stored only as its hash', async () => {
    const before = ctx.relay.clock.nowMs();
    const res = await create(developer).expect(201);
    expect(res.body).toEqual({
      id: expect.any(Number),
      url: expect.stringMatching(TOKEN_URL),
      path: `/install/${tokenOf(res.body.url)}`,
      // No SVC_SECRETS_KEY on this relay: the token is kept nowhere (share-link-resend.e2e-spec.ts has the key).
      resendable: false,
      password: false,
      download_limit: null,
      expires_at: expect.any(String),
      created_at: expect.any(String),
      created_by: developer.email.split('@')[0],
      downloads: 0,
      revoked: false,
    });
    expect(Date.parse(res.body.expires_at) - Date.parse(res.body.created_at)).toBe(7 * DAY_MS);
    expect(Date.parse(res.body.created_at)).toBeGreaterThanOrEqual(before);
    const row = await ctx.relay.app.get(DataSource).getRepository(ShareLinkEntity).findOneByOrFail({ id: res.body.id });
    expect(row.tokenHash).toBe(createHash('sha256').update(tokenOf(res.body.url)).digest('hex'));
    // The list never carries the link again.
    expect((await list()).find((l) => l.id === res.body.id)).toMatchObject({ url: null, path: null, downloads: 0, revoked: false });
  });

  it('expires_in_days takes 1 to 90; anything else is 400 naming the field', async () => {
    const res = await create(developer, { expires_in_days: 90 }).expect(201);
    expect(Date.parse(res.body.expires_at) - Date.parse(res.body.created_at)).toBe(90 * DAY_MS);
    for (const bad of [0, 91, 1.5, '7', -1]) {
      const refused = await create(developer, { expires_in_days: bad });
      expect({ status: refused.status, body: refused.body }).toEqual({
        status: 400,
        body: { error: 'expires_in_days must be an integer from 1 to 90' },
      });
    }
    await create(developer, {}, 99999).expect(404, { error: 'Build not found' });
  });

  it('access: Viewer cannot create or revoke (403) but lists; a PAT needs builds:write; no credential is 401', async () => {
    await create(viewer).expect(403, { error: 'Viewers have read-only access' });
    const viewPat = await ctx.members.pat(developer, 'view');
    await ctx.members.withPat(viewPat, 'post', `/api/v1/builds/${buildId}/share-links`).send({}).expect(403, { error: 'Insufficient scope' });
    await ctx.members.withPat(viewPat, 'get', `/api/v1/builds/${buildId}/share-links`).expect(403);
    const writePat = await ctx.members.pat(developer, 'builds:write');
    const made = await ctx.members.withPat(writePat, 'post', `/api/v1/builds/${buildId}/share-links`).send({}).expect(201);
    await ctx.members.withPat(writePat, 'get', `/api/v1/builds/${buildId}/share-links`).expect(200);
    const viewerPat = await ctx.members.pat(viewer, 'builds:write');
    await ctx.members.withPat(viewerPat, 'post', `/api/v1/builds/${buildId}/share-links`).send({}).expect(403);
    await ctx.members.as(viewer, 'delete', `/api/v1/builds/${buildId}/share-links/${made.body.id}`).expect(403);
    await http().post(`/api/v1/builds/${buildId}/share-links`).send({}).expect(401);
    await http().get(`/api/v1/builds/${buildId}/share-links`).expect(401);
    expect((await list(viewer)).length).toBeGreaterThanOrEqual(3);
  });

  it('opens the install page and downloads without any cookie; counts GETs from the first byte only', async () => {
    const link = (await create(developer).expect(201)).body;
    const token = tokenOf(link.url);
    const page = await http().get(`/install/${token}`).expect(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toMatch(/default-src 'self'; script-src 'self'; style-src 'self' 'nonce-/);
    expect(page.headers).toMatchObject({
      'x-frame-options': 'DENY',
      'referrer-policy': 'no-referrer',
      'x-content-type-options': 'nosniff',
      'cache-control': 'no-store',
    });
    expect(page.text).toContain('<h1>Résumé Viewer</h1>');
    expect(page.text).toContain('2.0.0-beta (7)');
    expect(page.text).toContain('feature/share');
    expect(page.text).toMatch(/<dt>Size<\/dt><dd>\d+\.\d KB<\/dd>/);
    expect(page.text).toContain(`href="/api/v1/share/${token}/download"`);
    // No inline script: the one script is the relay's own file (times in the visitor's zone).
    expect(page.text.match(/<script[^>]*>/g)).toEqual(['<script src="/install/script/local-times.js" defer>']);

    const bytes = readFileSync(fixture(APK));
    const file = await http().get(`/api/v1/share/${token}/download`).buffer(true).parse(rawBody).expect(200);
    expect(file.headers['content-type']).toBe('application/vnd.android.package-archive');
    expect(file.headers['content-disposition']).toBe(`attachment; filename="${APK}"`);
    expect(Buffer.compare(file.body as Buffer, bytes)).toBe(0);
    await http().get(`/api/v1/share/${token}/download`).set('Range', 'bytes=0-9').expect(206);
    const resumed = await http().get(`/api/v1/share/${token}/download`).set('Range', 'bytes=10-').buffer(true).parse(rawBody).expect(206);
    expect(Buffer.compare(resumed.body as Buffer, bytes.subarray(10))).toBe(0);
    await http().head(`/api/v1/share/${token}/download`).expect(200);
    expect((await list()).find((l) => l.id === link.id)!.downloads).toBe(2);
  });

  it('the token is no credential anywhere else: as a bearer it is 401', async () => {
    const token = tokenOf((await create(developer).expect(201)).body.url);
    for (const path of [`/api/v1/builds/${buildId}`, `/api/v1/builds/${buildId}/download`, '/api/v1/builds', '/api/v1/apps', '/uploads/avatars/x.png']) {
      await http().get(path).set('Authorization', `Bearer ${token}`).expect(401, { error: 'Unauthorized' });
    }
    await http().get('/api/v1/invitations/verify').query({ token }).expect(410);
  });

  it('unknown or malformed tokens are 404; a revoked link is 410 (JSON and page) and listed as revoked', async () => {
    await http().get(`/api/v1/share/${'a'.repeat(64)}/download`).expect(404, { error: 'Share link not found' });
    await http().get('/api/v1/share/not-a-token/download').expect(404, { error: 'Share link not found' });
    const missing = await http().get(`/install/${'b'.repeat(64)}`).expect(404);
    expect(missing.text).toContain('This link is not valid');

    const link = (await create(developer).expect(201)).body;
    const token = tokenOf(link.url);
    await ctx.members.as(developer, 'delete', `/api/v1/builds/${buildId}/share-links/${link.id}`).expect(204);
    await ctx.members.as(developer, 'delete', `/api/v1/builds/${buildId}/share-links/${link.id}`).expect(204);
    await ctx.members.as(developer, 'delete', `/api/v1/builds/${buildId}/share-links/999999`).expect(404, { error: 'Share link not found' });
    await http().get(`/api/v1/share/${token}/download`).expect(410, { error: 'This share link was revoked' });
    const page = await http().get(`/install/${token}`).expect(410);
    expect(page.text).toContain('This link no longer works');
    expect(page.text).toContain('This share link was revoked.');
    expect((await list()).find((l) => l.id === link.id)).toMatchObject({ revoked: true });
  });

  it('escapes a hostile app name and label on the install page; an iOS simulator build says where it installs', async () => {
    const name = `<script>alert(1)</script>"'&`;
    const label = `"><img src=x onerror=alert(2)>`;
    const upload = await ctx.members
      .as(developer, 'post', '/api/v1/builds')
      .field('label', label)
      .attach('file', hostileAppZip(name), 'Hostile.app.zip')
      .expect(201);
    expect(upload.body.name).toBe(name);
    const token = tokenOf((await create(developer, {}, upload.body.id).expect(201)).body.url);
    const page = await http().get(`/install/${token}`).expect(200);
    expect(page.text).not.toContain('<script>alert');
    expect(page.text).not.toContain('<img src=x');
    expect(page.text).toContain('<h1>&#60;script&#62;alert(1)&#60;/script&#62;&#34;&#39;&#38;</h1>');
    expect(page.text).toContain('&#34;&#62;&#60;img src=x onerror=alert(2)&#62;');
    expect(page.text).toContain('This is an iOS simulator build.');
    expect(page.text).toContain('not on an iPhone or iPad');
    const file = await http().get(`/api/v1/share/${token}/download`).expect(200);
    expect(file.headers['content-type']).toBe('application/zip');

    // Deleting the app deletes the build: its links end with 410, on the page too.
    await ctx.members.as(developer, 'delete', `/api/v1/apps/${upload.body.app_id}`).expect(200);
    await http().get(`/api/v1/share/${token}/download`).expect(410, { error: 'The build this link shared was deleted' });
    await http().get(`/install/${token}`).expect(410);
  });

  it('expires: 410 once the relay clock passes expires_at (a 1-day link), while a 7-day link still works', async () => {
    const short = tokenOf((await create(developer, { expires_in_days: 1 }).expect(201)).body.url);
    const long = tokenOf((await create(developer).expect(201)).body.url);
    ctx.relay.clock.advance(DAY_MS - 60_000);
    await http().get(`/api/v1/share/${short}/download`).expect(200);
    ctx.relay.clock.advance(60_000);
    await http().get(`/api/v1/share/${short}/download`).expect(410, { error: 'This share link has expired' });
    expect((await http().get(`/install/${short}`).expect(410)).text).toContain('This share link has expired.');
    await http().get(`/install/${long}`).expect(200);
  });

  it('a purged build ends its links (410), and they leave its list', async () => {
    const token = tokenOf((await create(developer, { expires_in_days: 90 }).expect(201)).body.url);
    await ctx.members.as(developer, 'post', `/api/v1/builds/${buildId}/schedule-deletion`).expect(200);
    ctx.relay.clock.advance(31 * DAY_MS);
    expect(await ctx.relay.app.get(BuildRetentionService).purgeDue()).toBe(1);
    await http().get(`/api/v1/share/${token}/download`).expect(410, { error: 'The build this link shared was deleted' });
    const cookie = await ctx.members.login(viewer.email); // 31 days later the old session has expired
    await http().get(`/api/v1/builds/${buildId}/share-links`).set('Cookie', cookie).expect(404, { error: 'Build not found' });
  });
});


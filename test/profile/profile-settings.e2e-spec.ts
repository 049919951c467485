import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { images, MB } from '../support/images';
import { MemberFactory, TestMember } from '../support/factory';
import { startTestRelay, TestRelay } from '../support/test-relay';

describe('profile and team settings', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  let admin: TestMember;

  beforeAll(async () => {
    relay = await startTestRelay();
    members = new MemberFactory(relay);
    admin = await members.admin();
  });
  afterAll(() => relay.close());

  const stored = (folder: string) => relay.storedFiles(`uploads/${folder}/`);
  const tmpFiles = () => readdirSync(join(relay.dataDir, 'tmp'));
  const me = async (m: TestMember) => (await members.as(m, 'get', '/api/v1/auth/me').expect(200)).body;

  it('PATCH /profile sets the display name; an empty one clears it (falls back to the e-mail local part)', async () => {
    const qa = await members.member('QA', 'quinn@example.com');
    expect((await members.as(qa, 'patch', '/api/v1/profile').field('display_name', '  Quinn Q ').expect(200)).body).toEqual({ ok: true });
    expect(await me(qa)).toEqual(expect.objectContaining({ displayName: 'Quinn Q', avatarUrl: null }));
    await members.as(qa, 'patch', '/api/v1/profile').field('display_name', '').expect(200);
    expect((await me(qa)).displayName).toBe('quinn');
  });

  it('PATCH /profile with nothing, with JSON, or with a too long name is 400; signed out is 401', async () => {
    const qa = await members.member('QA');
    expect((await members.as(qa, 'patch', '/api/v1/profile').field('other', 'x').expect(400)).body.error).toMatch(/Nothing to update/);
    await members.as(qa, 'patch', '/api/v1/profile').send({ display_name: 'x' }).expect(400);
    await members.as(qa, 'patch', '/api/v1/profile').field('display_name', 'x'.repeat(201)).expect(400);
    await relay.http().patch('/api/v1/profile').field('display_name', 'x').expect(401);
  });

  it('avatar: a PNG named .jpg is stored as PNG; replacing it deletes the old file', async () => {
    const viewer = await members.member('Viewer');
    await members.as(viewer, 'patch', '/api/v1/profile').attach('avatar', images.png(), { filename: 'me.jpg', contentType: 'image/jpeg' }).expect(200);
    const first = (await me(viewer)).avatarUrl as string;
    expect(first).toMatch(/^\/uploads\/avatars\/[0-9a-f]{32}\.png$/);
    const served = await members.as(viewer, 'get', first).expect(200);
    expect(served.headers['content-type']).toBe('image/png');
    expect(Buffer.compare(served.body, images.png())).toBe(0);

    await members.as(viewer, 'patch', '/api/v1/profile').attach('avatar', images.jpeg(), 'new.jpg').expect(200);
    const second = (await me(viewer)).avatarUrl as string;
    expect(second).not.toBe(first);
    expect(await relay.storedFileExists(first.slice(1))).toBe(false);
    expect(await relay.storedFileExists(second.slice(1))).toBe(true);
    await members.as(viewer, 'get', first).expect(404);
  });

  it('avatar: HTML, SVG or GIF dressed as PNG is 400; WebP is 400 for avatars; nothing stays on disk', async () => {
    const dev = await members.member('Developer');
    const before = (await stored('avatars')).length;
    for (const [name, bytes] of [
      ['x.png', images.html()],
      ['x.png', images.svg()],
      ['x.jpg', images.gif()],
      ['x.webp', images.webp()],
      ['empty.png', Buffer.alloc(0)],
    ] as const) {
      const res = await members.as(dev, 'patch', '/api/v1/profile').attach('avatar', bytes, { filename: name, contentType: 'image/png' });
      expect({ name, status: res.status, error: res.body.error }).toEqual({ name, status: 400, error: 'avatar must be a PNG or JPEG image of at most 2 MB' });
    }
    expect((await stored('avatars')).length).toBe(before);
    expect(tmpFiles()).toEqual([]);
    expect((await me(dev)).avatarUrl).toBeNull();
  });

  it('avatar: exactly 2 MB is accepted, one byte more is 413 with nothing left behind', async () => {
    const dev = await members.member('Developer');
    await members.as(dev, 'patch', '/api/v1/profile').attach('avatar', images.png(2 * MB), 'big.png').expect(200);
    const before = (await stored('avatars')).length;
    const res = await members.as(dev, 'patch', '/api/v1/profile').attach('avatar', images.png(2 * MB + 1), 'big.png');
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ error: 'avatar must be a PNG or JPEG image of at most 2 MB' });
    expect((await stored('avatars')).length).toBe(before);
    expect(tmpFiles()).toEqual([]);
  });

  it('GET /settings: default name and no logo; PATCH sets name and logo, a new logo deletes the old one', async () => {
    const viewer = await members.member('Viewer');
    const initial = await members.as(viewer, 'get', '/api/v1/settings').expect(200);
    expect(initial.body).toEqual({ team_name: expect.any(String), logo_url: null });

    expect((await members.as(admin, 'patch', '/api/v1/settings').field('team_name', ' Mobile QA ').expect(200)).body).toEqual({ ok: true });
    await members.as(admin, 'patch', '/api/v1/settings').attach('logo', images.png(), 'logo.png').expect(200);
    const withLogo = (await members.as(viewer, 'get', '/api/v1/settings').expect(200)).body;
    expect(withLogo).toEqual({ team_name: 'Mobile QA', logo_url: expect.stringMatching(/^\/uploads\/logos\/[0-9a-f]{32}\.png$/) });
    await members.as(viewer, 'get', withLogo.logo_url).expect(200);

    await members.as(admin, 'patch', '/api/v1/settings').attach('logo', images.jpeg(), 'logo.jpg').expect(200);
    const replaced = (await members.as(viewer, 'get', '/api/v1/settings').expect(200)).body;
    expect(replaced.logo_url).toMatch(/\.jpg$/);
    expect(await stored('logos')).toEqual([replaced.logo_url.split('/').pop()]);
  });

  it('PATCH /settings rejects an empty team name, nothing to update, a non-image logo, an oversize logo', async () => {
    await members.as(admin, 'patch', '/api/v1/settings').field('team_name', '   ').expect(400);
    await members.as(admin, 'patch', '/api/v1/settings').field('x', 'y').expect(400);
    await members.as(admin, 'patch', '/api/v1/settings').attach('logo', images.svg(), { filename: 'logo.png', contentType: 'image/png' }).expect(400);
    await members.as(admin, 'patch', '/api/v1/settings').attach('logo', images.png(2 * MB + 1), 'logo.png').expect(413);
    expect(tmpFiles()).toEqual([]);
    expect((await members.as(admin, 'get', '/api/v1/settings').expect(200)).body.team_name).toBe('Mobile QA');
  });
});

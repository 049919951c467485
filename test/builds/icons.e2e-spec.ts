import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { PNG } from 'pngjs';
import yauzl from 'yauzl';
import { MemberFactory, TestMember } from '../support/factory';
import { rawBody } from '../support/raw-body';
import { attachBuild, fixture } from '../support/build-fixtures';
import { startTestRelay, TestRelay } from '../support/test-relay';

/** Width and height from a PNG's IHDR. */
function pngSize(png: Buffer): { width: number; height: number } {
  expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

/** One entry of a fixture APK, read with yauzl directly (not through the relay's reader). */
async function entryOf(apk: string, name: string): Promise<Buffer> {
  const zip = await promisify<string, yauzl.Options, yauzl.ZipFile>(yauzl.open)(fixture(`icons/${apk}`), { lazyEntries: true });
  try {
    return await new Promise<Buffer>((resolve, reject) => {
      zip.on('entry', (entry: yauzl.Entry) => {
        if (entry.fileName !== name) return zip.readEntry();
        zip.openReadStream(entry, (err, stream) => {
          if (err) return reject(err);
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('end', () => resolve(Buffer.concat(chunks)));
        });
      });
      zip.on('end', () => reject(new Error(`${name} is not in ${apk}`)));
      zip.readEntry();
    });
  } finally {
    zip.close();
  }
}

describe('app icons (extracted at upload)', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  let qa: TestMember;

  beforeAll(async () => {
    relay = await startTestRelay();
    members = new MemberFactory(relay);
    qa = await members.member('QA');
  });
  afterAll(() => relay.close());

  const upload = async (name: string) =>
    (await attachBuild(members.as(qa, 'post', '/api/v1/builds'), `icons/${name}`, {}, name).expect(201)).body as {
      id: number;
      app_id: number;
    };
  const icon = (path: string) => members.as(qa, 'get', path).buffer(true).parse(rawBody);

  it('Android mipmap icon: the best density (xxxhdpi, 192 px) with a year of caching and an ETag', async () => {
    const build = await upload('mipmap-icon.apk');
    const res = await icon(`/api/v1/builds/${build.id}/icon`).expect(200);
    expect(res.headers['content-type']).toBe('image/png');
    expect(res.headers['cache-control']).toBe('private, max-age=31536000, immutable');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers.etag).toBe(`"${createHash('sha256').update(res.body).digest('hex')}"`);
    expect(pngSize(res.body)).toEqual({ width: 192, height: 192 });
    expect(Buffer.compare(res.body, await entryOf('mipmap-icon.apk', 'res/mipmap-xxxhdpi-v4/ic_launcher.png'))).toBe(0);
    await members.as(qa, 'get', `/api/v1/builds/${build.id}/icon`).set('If-None-Match', res.headers.etag).expect(304);
  });

  it('adaptive icon: the PNG fallback the resource defines (xxhdpi, 144 px), not the foreground layer', async () => {
    const build = await upload('adaptive-icon.apk');
    const res = await icon(`/api/v1/builds/${build.id}/icon`).expect(200);
    expect(pngSize(res.body)).toEqual({ width: 144, height: 144 });
    expect(Buffer.compare(res.body, await entryOf('adaptive-icon.apk', 'res/mipmap-xxhdpi-v4/ic_launcher.png'))).toBe(0);
  });

  it('adaptive icon only (no bitmap): its PNG foreground composed over its colour background, cropped to the visible 72/108', async () => {
    const build = await upload('adaptive-only-icon.apk');
    const res = await icon(`/api/v1/builds/${build.id}/icon`).expect(200);
    expect(res.headers['content-type']).toBe('image/png');
    const composed = PNG.sync.read(res.body);
    // The 432 px xxxhdpi layer cropped to its centre 288 px: the foreground's white square (the
    // layer's middle third, 144..287) lands at 72..215, the background colour #3DDC84 around it.
    expect({ width: composed.width, height: composed.height }).toEqual({ width: 288, height: 288 });
    const pixel = (x: number, y: number) => [...composed.data.subarray((y * 288 + x) * 4, (y * 288 + x) * 4 + 4)];
    expect(pixel(0, 0)).toEqual([0x3d, 0xdc, 0x84, 255]);
    expect(pixel(71, 144)).toEqual([0x3d, 0xdc, 0x84, 255]);
    expect(pixel(72, 72)).toEqual([255, 255, 255, 255]);
    expect(pixel(144, 144)).toEqual([255, 255, 255, 255]);
    expect(pixel(216, 144)).toEqual([0x3d, 0xdc, 0x84, 255]);
    expect(pixel(287, 287)).toEqual([0x3d, 0xdc, 0x84, 255]);
  });

  it('an adaptive icon with a vector layer, or no icon at all: 404 "No icon", the build itself stored', async () => {
    const vector = await upload('adaptive-vector-icon.apk');
    await members.as(qa, 'get', `/api/v1/builds/${vector.id}/icon`).expect(404, { error: 'No icon' });
    await members.as(qa, 'get', `/api/v1/builds/${vector.id}`).expect(200);
    const plain = await attachBuild(members.as(qa, 'post', '/api/v1/builds'), 'string-label.apk').expect(201);
    await members.as(qa, 'get', `/api/v1/builds/${plain.body.id}/icon`).expect(404, { error: 'No icon' });
    await members.as(qa, 'get', '/api/v1/builds/999999/icon').expect(404, { error: 'No icon' });
    await members.as(qa, 'get', '/api/v1/builds/abc/icon').expect(400);
  });

  it('GET /builds and GET /builds/:id give icon_url only to builds that have an icon (the inbox never asks for a 404)', async () => {
    const withIcon = await upload('mipmap-icon.apk');
    const noIcon = await upload('adaptive-vector-icon.apk');
    const iconUrl = (await members.as(qa, 'get', `/api/v1/builds/${withIcon.id}`).expect(200)).body.icon_url;
    expect(iconUrl).toBe(`/api/v1/builds/${withIcon.id}/icon`);
    await icon(iconUrl).expect(200);
    expect((await members.as(qa, 'get', `/api/v1/builds/${noIcon.id}`).expect(200)).body.icon_url).toBeNull();
    const list = (await members.as(qa, 'get', '/api/v1/builds?limit=100').expect(200)).body.items as { id: number; icon_url: string | null }[];
    expect(list.find((b) => b.id === withIcon.id)!.icon_url).toBe(iconUrl);
    expect(list.find((b) => b.id === noIcon.id)!.icon_url).toBeNull();
  });

  it('iOS .app.zip: CFBundleIcons names AppIcon60x60, the largest of its files (@3x, 180 px) is the icon', async () => {
    const build = await upload('ios-icon.app.zip');
    const res = await icon(`/api/v1/builds/${build.id}/icon`).expect(200);
    expect(res.headers['content-type']).toBe('image/png');
    expect(pngSize(res.body)).toEqual({ width: 180, height: 180 });
    expect(Buffer.compare(res.body, await entryOf('ios-icon.app.zip', 'Demo.app/AppIcon60x60@3x.png'))).toBe(0);
  });

  it("iOS: Xcode's CgBI PNGs are skipped (browsers cannot show them), the standard one is used", async () => {
    const build = await upload('ios-cgbi-icon.app.zip');
    const res = await icon(`/api/v1/builds/${build.id}/icon`).expect(200);
    expect(pngSize(res.body)).toEqual({ width: 120, height: 120 });
  });

  it('iOS .tar.gz: legacy CFBundleIconFiles, icons stored after the Info.plist in the archive', async () => {
    const build = await upload('ios-icon.tar.gz');
    const res = await icon(`/api/v1/builds/${build.id}/icon`).expect(200);
    expect(pngSize(res.body)).toEqual({ width: 114, height: 114 });
  });

  it("an app's icon is its newest build's that has one, revalidated by ETag", async () => {
    const first = await upload('mipmap-icon.apk');
    const res = await icon(`/api/v1/apps/${first.app_id}/icon`).expect(200);
    expect(res.headers['cache-control']).toBe('private, no-cache');
    expect(pngSize(res.body).width).toBe(192);
    await members.as(qa, 'get', `/api/v1/apps/${first.app_id}/icon`).set('If-None-Match', res.headers.etag).expect(304);
    const vector = await upload('adaptive-vector-icon.apk');
    await members.as(qa, 'get', `/api/v1/apps/${vector.app_id}/icon`).expect(404, { error: 'No icon' });
    await members.as(qa, 'get', '/api/v1/apps/999999/icon').expect(404, { error: 'No icon' });
  });

  it('follows the access of the build and app routes, and goes with its build', async () => {
    const build = await upload('mipmap-icon.apk');
    await relay.http().get(`/api/v1/builds/${build.id}/icon`).expect(401);
    const view = await members.pat(qa, 'view');
    await members.withPat(view, 'get', `/api/v1/builds/${build.id}/icon`).expect(200);
    await members.withPat(view, 'get', `/api/v1/apps/${build.app_id}/icon`).expect(200);
    const writeOnly = await members.pat(qa, 'builds:write');
    await members.withPat(writeOnly, 'get', `/api/v1/apps/${build.app_id}/icon`).expect(403);
    const admin = await members.admin();
    await members.as(admin, 'delete', `/api/v1/apps/${build.app_id}`).expect(200);
    await members.as(qa, 'get', `/api/v1/builds/${build.id}/icon`).expect(404);
  });
});

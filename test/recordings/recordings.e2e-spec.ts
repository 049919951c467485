import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { HOUR_MS } from '../../src/common/time';
import { ScheduledPurgesService } from '../../src/maintenance/scheduled-purges.service';
import { MemberFactory, TestMember } from '../support/factory';
import { startTestRelay, TestRelay } from '../support/test-relay';
import { rawBody } from '../support/raw-body';

const FIXTURES = join(__dirname, '..', 'fixtures', 'recordings');
/** Two seconds of VP8 test pattern, made with `ffmpeg -f lavfi -i testsrc=size=64x48:rate=10 -t 2 -c:v libvpx`. */
const WEBM = readFileSync(join(FIXTURES, 'two-seconds.webm'));
/** One second of H.264 in MP4, made the same way with libx264. */
const MP4 = readFileSync(join(FIXTURES, 'one-second.mp4'));
/** two-seconds.webm with its EBML header re-encoded as libebml writers do: every element size in 8 bytes. */
const LONG_HEADER_WEBM = readFileSync(join(FIXTURES, 'long-header-sizes.webm'));
const LIMIT = 64 * 1024;


describe('recordings (spec §4 Recordings, §3 72-hour expiry)', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  let qa: TestMember;

  beforeAll(async () => {
    relay = await startTestRelay({ SVC_MAX_RECORDING_BYTES: String(LIMIT) });
    members = new MemberFactory(relay);
    qa = await members.member('QA');
  });
  afterAll(() => relay.close());

  const upload = (query = '', field = 'video', data: Buffer = WEBM, name = 'session.webm') =>
    members.as(qa, 'post', `/api/v1/recordings/upload${query}`).attach(field, data, name);
  const tmpFiles = () => readdirSync(join(relay.dataDir, 'tmp'));
  const stored = () => relay.storedFiles('recordings/');

  it('takes a real WebM in a field of any name, stores it under a generated name and serves it back', async () => {
    const res = await upload('?sessionId=fake-ios-1&buildId=42', 'blob', WEBM, '../../evil name.webm').expect(200);
    expect(res.body).toEqual({ url: expect.stringMatching(/^\/api\/v1\/recordings\/rec-[0-9a-f]{32}\.webm$/) });
    const file = await members.as(qa, 'get', res.body.url).buffer(true).parse(rawBody).expect(200);
    expect(file.headers['content-type']).toBe('video/webm');
    expect(file.headers['accept-ranges']).toBe('bytes');
    expect(Buffer.compare(file.body, WEBM)).toBe(0);
    expect(await stored()).toContain(res.body.url.split('/').pop());
    expect(tmpFiles()).toEqual([]);
  });

  it('takes a WebM whose EBML header spends 8 bytes on every element size', async () => {
    const res = await upload('', 'video', LONG_HEADER_WEBM, 'recorded.webm').expect(200);
    expect(res.body.url).toMatch(/\.webm$/);
    const file = await members.as(qa, 'get', res.body.url).buffer(true).parse(rawBody).expect(200);
    expect(file.headers['content-type']).toBe('video/webm');
    expect(Buffer.compare(file.body, LONG_HEADER_WEBM)).toBe(0);
  });

  it('lists recordings, filtered by buildId, in the spec shape', async () => {
    const other = await upload('?buildId=7', 'file', MP4, 'clip.mp4').expect(200);
    const mine = await members.as(qa, 'get', '/api/v1/recordings?buildId=42').expect(200);
    expect(mine.body).toHaveLength(1);
    const item = mine.body[0];
    expect(item).toEqual({
      id: expect.any(Number),
      url: expect.stringMatching(/^\/api\/v1\/recordings\/rec-/),
      sessionId: 'fake-ios-1',
      fileSize: WEBM.length,
      mime: 'video/webm',
      createdAt: expect.stringMatching(/\.\d{3}Z$/),
      expiresAt: expect.stringMatching(/\.\d{3}Z$/),
    });
    expect(Date.parse(item.expiresAt) - Date.parse(item.createdAt)).toBe(72 * HOUR_MS);
    const all = await members.as(qa, 'get', '/api/v1/recordings').expect(200);
    expect(all.body.map((r: { url: string }) => r.url)).toContain(other.body.url);
    expect(all.body.find((r: { url: string }) => r.url === other.body.url).mime).toBe('video/mp4');
    await members.as(qa, 'get', '/api/v1/recordings?buildId=abc').expect(400);
  });

  it('serves byte ranges with 206 and Content-Range, and 416 past the end', async () => {
    const { body } = await upload().expect(200);
    const part = await members.as(qa, 'get', body.url).set('Range', 'bytes=100-199').buffer(true).parse(rawBody).expect(206);
    expect(part.headers['content-range']).toBe(`bytes 100-199/${WEBM.length}`);
    expect(Buffer.compare(part.body, WEBM.subarray(100, 200))).toBe(0);
    const tail = await members.as(qa, 'get', body.url).set('Range', 'bytes=-10').buffer(true).parse(rawBody).expect(206);
    expect(Buffer.compare(tail.body, WEBM.subarray(WEBM.length - 10))).toBe(0);
    const beyond = await members.as(qa, 'get', body.url).set('Range', `bytes=${WEBM.length + 10}-`);
    expect(beyond.status).toBe(416);
    expect(beyond.headers['content-range']).toBe(`bytes */${WEBM.length}`);
  });

  it('answers 404 once a recording is past its 72 hours, and the purge removes the file', async () => {
    const { body } = await upload('?buildId=99').expect(200);
    const filename = body.url.split('/').pop();
    relay.clock.advance(72 * HOUR_MS - 60_000);
    await members.as(qa, 'get', body.url).expect(200);
    relay.clock.advance(60_000);
    const cookie = await members.login(qa.email);
    const gone = await relay.http().get(body.url).set('Cookie', cookie);
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ error: 'Recording not found' });
    expect((await relay.http().get('/api/v1/recordings?buildId=99').set('Cookie', cookie).expect(200)).body).toEqual([]);
    expect(await relay.storedFileExists(`recordings/${filename}`)).toBe(true);
    await relay.app.get(ScheduledPurgesService).runAll();
    expect(await relay.storedFileExists(`recordings/${filename}`)).toBe(false);
    qa = { ...qa, cookie };
  });

  it('refuses content that is not a video (400), a missing file (400) and an oversize one (413), leaving nothing behind', async () => {
    const before = await stored();
    const html = await upload('', 'video', Buffer.from('<html><script>alert(1)</script></html>'), 'x.webm');
    expect(html.status).toBe(400);
    const png = await upload('', 'video', Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), 'x.webm');
    expect(png.status).toBe(400);
    const none = await members.as(qa, 'post', '/api/v1/recordings/upload').field('sessionId', 'x');
    expect(none.status).toBe(400);
    expect(none.body).toEqual({ error: 'file required' });
    const big = Buffer.concat([WEBM, Buffer.alloc(LIMIT)]);
    const tooBig = await upload('', 'video', big, 'big.webm').catch((err) => err.response ?? err);
    expect(tooBig.status).toBe(413);
    expect(await stored()).toEqual(before);
    expect(tmpFiles()).toEqual([]);
  });

  it('never reaches outside the recordings folder and takes the session cookie only', async () => {
    for (const path of ['..%2f..%2fsvc.sqlite', '..%2fsvc.sqlite', 'rec-00.webm', '%2e%2e%2fsvc.sqlite']) {
      const res = await members.as(qa, 'get', `/api/v1/recordings/${path}`);
      expect(res.status).toBe(404);
    }
    const pat = await members.pat(qa, 'view,builds:write');
    await members.withPat(pat, 'get', '/api/v1/recordings').expect(401);
    await members.withPat(pat, 'post', '/api/v1/recordings/upload').attach('video', WEBM, 'a.webm').expect(401);
    await relay.http().get('/api/v1/recordings').expect(401);
  });
});

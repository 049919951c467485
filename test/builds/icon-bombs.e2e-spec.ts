import zlib = require('node:zlib');
import { inflatedSizeOf } from '../../src/images/bounded-png';
import { fixture } from '../support/build-fixtures';
import type { TestMember } from '../support/factory';
import { PngHeaderFields, pngFile, zlibOfZeros } from '../support/png-file';
import { useTestRelay } from '../support/use-relay';
import { zipEntriesOf, zipOf } from '../support/zip-file';

/** The PNG foreground layer of adaptive-only-icon.apk's `<adaptive-icon>` (its background is a colour). */
const FOREGROUND = 'res/mipmap-xxxhdpi-v4/ic_launcher_foreground.png';
const RGBA_1024: Omit<PngHeaderFields, 'interlaced'> = { width: 1024, height: 1024, bitDepth: 8, colorType: 6 };
/** About 1 MiB of zlib stream (under the 1 MiB a layer file may be) that inflates to 1000 MiB of zeros. */
const BOMB_IDAT = zlibOfZeros(1000);
/**
 * Growth of the test process's peak RSS (the relay runs in it) that one upload may cause. This is what
 * tells the bomb apart: pngjs inflated the 1000 MiB (2 GB of RSS), which also held the event loop for
 * 6-17 s; a decode bounded by the header's allowance holds a few MiB. The stall itself is not timed
 * here (a busy machine's jitter is not the relay's): the bytes it comes from are counted (below).
 */
const MAX_RSS_GROWTH_MB = 200;

/** adaptive-only-icon.apk with its foreground layer replaced by `png` (deflated, as aapt stores layers). */
async function apkWithForeground(png: Buffer): Promise<Buffer> {
  const entries = await zipEntriesOf(fixture('icons/adaptive-only-icon.apk'));
  expect(entries.map((e) => e.name)).toContain(FOREGROUND);
  return zipOf(entries.map((e) => (e.name === FOREGROUND ? { name: e.name, data: png, deflate: true } : e)));
}

describe('image decompression bombs in a build (adaptive icon layers)', () => {
  const ctx = useTestRelay();
  let qa: TestMember;
  beforeAll(async () => (qa = await ctx.members.member('QA')));

  /**
   * Uploads `apk` while /health is probed back to back (each must answer 200); the peak RSS growth
   * it caused, in MB, and how many probes were answered meanwhile.
   */
  async function upload(apk: Buffer): Promise<{ id: number; hasIcon: boolean; rssGrowthMb: number; probes: number; inflatedBytes: number }> {
    const peakBefore = process.resourceUsage().maxRSS;
    // Bytes zlib inflated in one call (watched, not changed): the work a decode holds the loop for. A call
    // stopped at its maxOutputLength counts as that much.
    let inflatedBytes = 0;
    const inflateSync = zlib.inflateSync;
    const inflating = jest.spyOn(zlib, 'inflateSync').mockImplementation((data, options) => {
      try {
        const out = inflateSync(data, options);
        inflatedBytes = Math.max(inflatedBytes, out.length);
        return out;
      } catch (err) {
        inflatedBytes = Math.max(inflatedBytes, options?.maxOutputLength ?? Infinity);
        throw err;
      }
    });
    let probes = 0;
    let uploading = true;
    const probing = (async () => {
      while (uploading) {
        await ctx.relay.http().get('/api/v1/health').expect(200);
        probes++;
      }
    })();
    let id: number;
    try {
      id = (await ctx.members.as(qa, 'post', '/api/v1/builds').attach('file', apk, 'bomb.apk').expect(201)).body.id;
    } finally {
      uploading = false;
      inflating.mockRestore();
      await probing;
    }
    const build = (await ctx.members.as(qa, 'get', `/api/v1/builds/${id}`).expect(200)).body as { icon_url: string | null };
    if (!build.icon_url) await ctx.members.as(qa, 'get', `/api/v1/builds/${id}/icon`).expect(404, { error: 'No icon' });
    return {
      id,
      hasIcon: build.icon_url !== null,
      rssGrowthMb: (process.resourceUsage().maxRSS - peakBefore) / 1024,
      probes,
      inflatedBytes,
    };
  }

  it.each([
    ['interlaced 1024 px layer (pngjs inflates these without a limit)', { ...RGBA_1024, interlaced: true }],
    ['non-interlaced 1024 px layer', { ...RGBA_1024, interlaced: false }],
    ['layer declaring 100,000 px a side', { ...RGBA_1024, width: 100_000, height: 100_000, interlaced: true }],
  ])('%s whose IDAT inflates to 1000 MiB: 201 without an icon, memory bounded, /health answers meanwhile', async (_, header) => {
    const apk = await apkWithForeground(pngFile(header, BOMB_IDAT));
    expect(apk.length).toBeLessThan(16 * 1024);
    const result = await upload(apk);
    expect(result.hasIcon).toBe(false);
    expect(result.rssGrowthMb).toBeLessThan(MAX_RSS_GROWTH_MB);
    // No call inflated more than a 1024 px layer may hold (past the side cap, nothing is inflated at all).
    expect(result.inflatedBytes).toBeLessThanOrEqual(inflatedSizeOf({ ...RGBA_1024, interlaced: true }));
    expect(result.probes).toBeGreaterThanOrEqual(1);
  });

  it('an interlaced layer (216 px, xhdpi) that inflates to exactly what its header allows is still composed into the icon', async () => {
    const layout = { ...RGBA_1024, width: 216, height: 216, interlaced: true };
    const png = pngFile(layout, zlib.deflateSync(Buffer.alloc(inflatedSizeOf(layout))));
    expect((await upload(await apkWithForeground(png))).hasIcon).toBe(true);
  });
});

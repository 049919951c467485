import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AccessUnitSplitter, NAL_IDR, NAL_SLICE, nalType, nalUnits } from './annex-b';
import { videoConfigOf } from './h264-config';

// libx264 output, 100×60 (coded 112×64, cropped), 10 pictures, key frames at 0 and 5:
// sliced.h264 has 4 slices per picture and no delimiters, aud.h264 one slice and an AUD per picture.
const fixture = (name: string) => readFileSync(join(__dirname, '../../../test/fixtures/video', name));

function split(data: Buffer, chunkSize: number, maxUnitBytes = 1 << 20) {
  const units: { unit: Buffer; key: boolean }[] = [];
  const dropped: number[] = [];
  const splitter = new AccessUnitSplitter((unit, key) => units.push({ unit, key }), maxUnitBytes, (n) => dropped.push(n));
  for (let i = 0; i < data.length; i += chunkSize) splitter.push(data.subarray(i, i + chunkSize));
  splitter.end();
  return { units, dropped };
}

describe('AccessUnitSplitter', () => {
  it.each([1, 7, 100, 4096, 1 << 20])('keeps the four slices of each picture as one unit (chunks of %i bytes)', (chunk) => {
    const { units } = split(fixture('sliced.h264'), chunk);
    expect(units).toHaveLength(10);
    expect(units.map((u) => u.key)).toEqual([true, false, false, false, false, true, false, false, false, false]);
    for (const { unit } of units) {
      expect(nalUnits(unit).filter((n) => [NAL_SLICE, NAL_IDR].includes(nalType(n)))).toHaveLength(4);
    }
    expect(Buffer.concat(units.map((u) => u.unit))).toEqual(fixture('sliced.h264'));
  });

  it('starts a unit at each access unit delimiter', () => {
    const { units } = split(fixture('aud.h264'), 333);
    expect(units).toHaveLength(10);
    expect(units.every(({ unit }) => nalType(nalUnits(unit)[0]) === 9)).toBe(true);
    expect(units.filter((u) => u.key)).toHaveLength(2);
  });

  it('drops a unit over the bound and goes on with the next ones', () => {
    const data = fixture('aud.h264');
    const sizes = split(data, 512).units.map((u) => u.unit.length);
    const bound = Math.max(...sizes.slice(1)) + 1; // only the first (key) unit is larger
    expect(sizes[0]).toBeGreaterThan(bound);
    const { units, dropped } = split(data, 512, bound);
    expect(units).toHaveLength(9);
    expect(dropped).toHaveLength(1);
  });

  it('drops bytes without any start code once past the bound', () => {
    const { units, dropped } = split(Buffer.alloc(10_000, 0xff), 1000, 4096);
    expect(units).toHaveLength(0);
    expect(dropped.length).toBeGreaterThan(0);
  });
});

describe('videoConfigOf', () => {
  it('reads the codec string and the cropped size from the SPS of a key frame', () => {
    const { units } = split(fixture('sliced.h264'), 4096);
    expect(videoConfigOf(units[0].unit)).toEqual({ codec: 'avc1.42C00A', width: 100, height: 60 });
    expect(videoConfigOf(units[1].unit)).toBeNull();
  });

  it('answers null for garbage', () => {
    expect(videoConfigOf(Buffer.from([0, 0, 0, 1, 0x67, 0xff]))).toBeNull();
    expect(videoConfigOf(Buffer.alloc(0))).toBeNull();
  });
});

import { fixtureAccessUnits } from '../../../test/support/video-fixture';
import { avcDescription, toAvcc } from './h264-mp4-writer';

describe('Annex B to MP4 samples', () => {
  const [key, delta] = fixtureAccessUnits();

  it('builds the avcC record from the key frame’s SPS and PPS', () => {
    const avcc = Buffer.from(avcDescription(key)!);
    const spsStart = key.indexOf(Buffer.from([0, 0, 1, 0x67])) + 3;
    expect(avcc.subarray(0, 5)).toEqual(Buffer.from([1, key[spsStart + 1], key[spsStart + 2], key[spsStart + 3], 0xff]));
    expect(avcc[5]).toBe(0xe1); // one SPS
    const spsLength = avcc.readUInt16BE(6);
    expect(avcc[8] & 0x1f).toBe(7);
    expect(avcc[8 + spsLength]).toBe(1); // one PPS
    expect(avcc[8 + spsLength + 3] & 0x1f).toBe(8);
    expect(avcc.length).toBe(8 + spsLength + 3 + avcc.readUInt16BE(8 + spsLength + 1));
    expect(avcDescription(delta)).toBeNull();
  });

  it('writes each NAL unit behind its 4-byte length, leaving out AUD, SPS and PPS', () => {
    const sample = Buffer.from(toAvcc(key));
    const types: number[] = [];
    for (let offset = 0; offset < sample.length; ) {
      const length = sample.readUInt32BE(offset);
      types.push(sample[offset + 4] & 0x1f);
      offset += 4 + length;
      expect(offset).toBeLessThanOrEqual(sample.length);
    }
    expect(types).toContain(5);
    expect(types.filter((t) => t === 7 || t === 8 || t === 9)).toEqual([]);
  });
});

import { NAL_SPS, nalType, nalUnits } from './annex-b';

/** What a viewer's decoder needs to be configured (WebCodecs `VideoDecoderConfig`). */
export interface VideoConfig {
  /** RFC 6381 codec string: `avc1.` + profile_idc, constraint flags, level_idc in hex (`avc1.42C01F`). */
  codec: string;
  width: number;
  height: number;
}

/**
 * The config of an access unit that carries an SPS (key frames do); null when it has none or it
 * cannot be read. Reads only what the codec string and the cropped picture size need
 * (ITU-T H.264 §7.3.2.1.1). Never throws: the bytes come from an agent.
 */
export function videoConfigOf(accessUnit: Buffer): VideoConfig | null {
  const sps = nalUnits(accessUnit).find((u) => nalType(u) === NAL_SPS);
  if (!sps || sps.length < 4) return null;
  try {
    return readSps(withoutEmulationPrevention(sps.subarray(1)));
  } catch {
    return null;
  }
}

export const sameConfig = (a: VideoConfig | null, b: VideoConfig | null): boolean =>
  !!a && !!b && a.codec === b.codec && a.width === b.width && a.height === b.height;

const HIGH_PROFILES = new Set([100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135]);

function readSps(rbsp: Buffer): VideoConfig | null {
  const bits = new BitReader(rbsp);
  const profile = bits.read(8);
  const constraints = bits.read(8);
  const level = bits.read(8);
  bits.ue(); // seq_parameter_set_id
  let chromaFormat = 1;
  let separateColourPlanes = 0;
  if (HIGH_PROFILES.has(profile)) {
    chromaFormat = bits.ue();
    if (chromaFormat === 3) separateColourPlanes = bits.read(1);
    bits.ue(); // bit_depth_luma_minus8
    bits.ue(); // bit_depth_chroma_minus8
    bits.read(1); // qpprime_y_zero_transform_bypass_flag
    if (bits.read(1)) {
      for (let i = 0; i < (chromaFormat === 3 ? 12 : 8); i++) {
        if (bits.read(1)) skipScalingList(bits, i < 6 ? 16 : 64);
      }
    }
  }
  bits.ue(); // log2_max_frame_num_minus4
  const pocType = bits.ue();
  if (pocType === 0) bits.ue();
  else if (pocType === 1) {
    bits.read(1);
    bits.se();
    bits.se();
    const cycle = bits.ue();
    if (cycle > 255) return null;
    for (let i = 0; i < cycle; i++) bits.se();
  }
  bits.ue(); // max_num_ref_frames
  bits.read(1); // gaps_in_frame_num_value_allowed_flag
  const widthMbs = bits.ue() + 1;
  const heightMapUnits = bits.ue() + 1;
  const frameMbsOnly = bits.read(1);
  if (!frameMbsOnly) bits.read(1); // mb_adaptive_frame_field_flag
  bits.read(1); // direct_8x8_inference_flag
  let crop = { left: 0, right: 0, top: 0, bottom: 0 };
  if (bits.read(1)) crop = { left: bits.ue(), right: bits.ue(), top: bits.ue(), bottom: bits.ue() };
  const chroma = separateColourPlanes ? 0 : chromaFormat;
  const cropUnitX = chroma === 1 || chroma === 2 ? 2 : 1;
  const cropUnitY = (chroma === 1 ? 2 : 1) * (2 - frameMbsOnly);
  const width = widthMbs * 16 - cropUnitX * (crop.left + crop.right);
  const height = (2 - frameMbsOnly) * heightMapUnits * 16 - cropUnitY * (crop.top + crop.bottom);
  if (width <= 0 || height <= 0 || width > 16384 || height > 16384) return null;
  const hex = (n: number) => n.toString(16).toUpperCase().padStart(2, '0');
  return { codec: `avc1.${hex(profile)}${hex(constraints)}${hex(level)}`, width, height };
}

function skipScalingList(bits: BitReader, size: number): void {
  let last = 8;
  let next = 8;
  for (let j = 0; j < size; j++) {
    if (next !== 0) next = (last + bits.se() + 256) % 256;
    last = next === 0 ? last : next;
  }
}

/** 00 00 03 → 00 00 inside a NAL unit (the 03 only keeps start codes out of the payload). */
function withoutEmulationPrevention(nal: Buffer): Buffer {
  const out: number[] = [];
  for (let i = 0; i < nal.length; i++) {
    if (i >= 2 && nal[i] === 3 && nal[i - 1] === 0 && nal[i - 2] === 0) {
      // Skip the 03; the zeros before it have been written.
      continue;
    }
    out.push(nal[i]);
  }
  return Buffer.from(out);
}

/** Big-endian bits, with Exp-Golomb codes; reading past the end throws (the caller answers null). */
class BitReader {
  private position = 0;

  constructor(private readonly data: Buffer) {}

  read(count: number): number {
    let value = 0;
    for (let i = 0; i < count; i++) {
      const byte = this.data[this.position >> 3];
      if (byte === undefined) throw new RangeError('SPS ends early');
      value = value * 2 + ((byte >> (7 - (this.position & 7))) & 1);
      this.position++;
    }
    return value;
  }

  ue(): number {
    let zeros = 0;
    while (this.read(1) === 0) {
      if (++zeros > 31) throw new RangeError('Exp-Golomb code too long');
    }
    return 2 ** zeros - 1 + this.read(zeros);
  }

  se(): number {
    const value = this.ue();
    return value % 2 ? (value + 1) / 2 : -value / 2;
  }
}

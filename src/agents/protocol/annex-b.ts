/**
 * H.264 Annex B byte streams (ITU-T H.264 Annex B): NAL units between start codes, grouped into
 * access units (one picture each). Shared by the reference agent, which cuts an encoder's output
 * into access units, and the relay, which reads the SPS of key frames for the viewers' config.
 */

export const NAL_SLICE = 1;
export const NAL_IDR = 5;
export const NAL_SEI = 6;
export const NAL_SPS = 7;
export const NAL_PPS = 8;
export const NAL_AUD = 9;

/** The NAL units of a buffer of Annex B data (start codes removed), in order. */
export function nalUnits(data: Buffer): Buffer[] {
  const units: Buffer[] = [];
  let start = -1;
  let i = 0;
  while (i + 2 < data.length) {
    if (data[i] === 0 && data[i + 1] === 0 && data[i + 2] === 1) {
      if (start >= 0) units.push(trimTrailingZeros(data.subarray(start, i)));
      i += 3;
      start = i;
    } else i++;
  }
  if (start >= 0 && start < data.length) units.push(data.subarray(start));
  return units.filter((u) => u.length > 0);
}

export const nalType = (unit: Buffer): number => unit[0] & 0x1f;

/** Whether an access unit holds an IDR slice (a key frame: decodable on its own). */
export function isKeyFrame(accessUnit: Buffer): boolean {
  return nalUnits(accessUnit).some((u) => nalType(u) === NAL_IDR);
}

/** The zeros before a 4-byte start code belong to it, not to the NAL unit before. */
function trimTrailingZeros(unit: Buffer): Buffer {
  let end = unit.length;
  while (end > 0 && unit[end - 1] === 0) end--;
  return unit.subarray(0, end);
}

/**
 * Cuts a continuous Annex B stream (an encoder's stdout, in chunks of any size) into access units.
 * An access unit starts at an access unit delimiter, or at an SPS / PPS / SEI / AUD after a picture's
 * slices, or at a slice whose first_mb_in_slice is 0 after slices (ITU-T H.264 §7.4.1.2.3): so the
 * several slices libx264's sliced threads write per picture stay ONE unit. A unit is handed on as
 * soon as the first bytes of the next one arrive (one frame of delay). Bounded: a unit that grows past `maxUnitBytes` is dropped
 * (reported through `onDropped`) and the splitter resynchronises at the next unit.
 */
export class AccessUnitSplitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** The current unit's NAL units, with their start codes. */
  private unit: Buffer[] = [];
  private unitBytes = 0;
  private unitHasSlice = false;
  private oversized = false;

  constructor(
    private readonly onUnit: (unit: Buffer, key: boolean) => void,
    private readonly maxUnitBytes: number,
    private readonly onDropped: (bytes: number) => void = () => undefined,
  ) {}

  /** More bytes of the stream. */
  push(chunk: Buffer): void {
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    const data = this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending);
    // Every complete NAL unit in `data` (ended by the next start code) is placed; the tail waits.
    let nalStart = -1;
    let consumed = 0;
    let i = 0;
    while (i + 3 < data.length) {
      if (data[i] === 0 && data[i + 1] === 0 && data[i + 2] === 1) {
        const codeStart = i > 0 && data[i - 1] === 0 ? i - 1 : i;
        if (nalStart >= 0) {
          this.place(data.subarray(consumed, codeStart), data[nalStart]);
          consumed = codeStart;
        } else {
          // Bytes before the first start code (a stream joined midway, or after a drop) are no NAL unit.
          consumed = codeStart;
        }
        i += 3;
        nalStart = i;
        // Needs the byte after the NAL header (first_mb_in_slice) before it can be placed.
        if (nalStart + 1 >= data.length) break;
      } else i++;
    }
    // The NAL unit begun at the tail cannot be placed yet, but its first bytes tell whether it starts
    // the next picture: if so the current one is complete now, not a picture later (streams without
    // delimiters, such as Android's screenrecord, would otherwise wait two frames).
    if (nalStart >= 0 && nalStart + 1 < data.length && this.startsUnit(data.subarray(consumed))) this.flush();
    const rest = data.subarray(consumed);
    this.pending = rest.length ? [Buffer.from(rest)] : [];
    this.pendingBytes = rest.length;
    if (this.pendingBytes > this.maxUnitBytes) {
      // No start code for that long: not a stream we can follow; drop and wait for one.
      this.drop(this.unitBytes + this.pendingBytes);
      this.pending = [];
      this.pendingBytes = 0;
    }
  }

  /** The end of the stream: the last unit is complete. */
  end(): void {
    if (this.pendingBytes) {
      const data = Buffer.concat(this.pending);
      this.pending = [];
      this.pendingBytes = 0;
      const header = data.indexOf(Buffer.from([0, 0, 1]));
      if (header >= 0 && header + 3 < data.length) this.place(data, data[header + 3]);
    }
    this.flush();
  }

  /** One NAL unit with its start code; `header` is its NAL header byte. */
  private place(nal: Buffer, header: number): void {
    const type = header & 0x1f;
    if (this.startsUnit(nal)) this.flush();
    this.appendToUnit(nal);
    if (type === NAL_SLICE || type === NAL_IDR) this.unitHasSlice = true;
  }

  /** Whether a NAL unit (with its start code; its header and the byte after it at least) begins a new access unit. */
  private startsUnit(nal: Buffer): boolean {
    const type = nal[nal.indexOf(Buffer.from([0, 0, 1])) + 3] & 0x1f;
    const startsPicture = (type === NAL_SLICE || type === NAL_IDR) && firstMbIsZero(nal);
    return type === NAL_AUD || (this.unitHasSlice && (type === NAL_SPS || type === NAL_PPS || type === NAL_SEI || startsPicture));
  }

  private appendToUnit(bytes: Buffer): void {
    if (this.oversized) return;
    this.unitBytes += bytes.length;
    if (this.unitBytes > this.maxUnitBytes) {
      this.oversized = true;
      this.unit = [];
      return;
    }
    this.unit.push(Buffer.from(bytes));
  }

  private flush(): void {
    if (this.oversized) this.drop(this.unitBytes);
    else if (this.unit.length && this.unitHasSlice) {
      const unit = Buffer.concat(this.unit);
      this.onUnit(unit, isKeyFrame(unit));
    }
    this.unit = [];
    this.unitBytes = 0;
    this.unitHasSlice = false;
    this.oversized = false;
  }

  private drop(bytes: number): void {
    this.onDropped(bytes);
    this.unit = [];
    this.unitBytes = 0;
    this.unitHasSlice = false;
    this.oversized = false;
  }
}

/** first_mb_in_slice is ue(v) and the first field of a slice header: 0 is coded as a single 1 bit. */
function firstMbIsZero(nal: Buffer): boolean {
  const start = nal.indexOf(Buffer.from([0, 0, 1]));
  const byte = nal[start + 4];
  return byte !== undefined && (byte & 0x80) !== 0;
}

import type { EncodedVideoPacketSource, Output } from 'mediabunny';

/** Loaded when the first recording starts, not at start-up (docs/decisions.md#s1). */
const mediabunny = () => require('mediabunny') as typeof import('mediabunny');
import { NAL_AUD, NAL_PPS, NAL_SPS, nalType, nalUnits } from '../../agents/protocol/annex-b';
import type { VideoConfig } from '../../agents/protocol/h264-config';

/** Used for the last frame (whose successor never came) when the stream gave no better estimate. */
const DEFAULT_FRAME_MS = 1000 / 30;

interface Held {
  data: Uint8Array;
  key: boolean;
  /** ms from the first frame. */
  at: number;
}

/**
 * H.264 access units (Annex B, as agents send them) into a fragmented MP4 file, without re-encoding
 * (mediabunny; docs/dependencies.md). The file is written as it goes, one fragment (about a second,
 * from a key frame) at a time, so memory stays at one fragment whatever the length. The first unit
 * must be a key frame with its SPS and PPS: they become the track's avcC; each unit becomes one
 * sample in AVCC form (4-byte lengths) without its AUD, SPS and PPS. Timestamps are the capture
 * times, relative to the first frame; a frame's duration is the gap to the next one. Calls must not
 * overlap (the caller chains them).
 */
export class H264Mp4Writer {
  private readonly output: Output;
  private readonly source: EncodedVideoPacketSource;
  private firstTs: number | null = null;
  private held: Held | null = null;
  private described = false;
  private description: Uint8Array | null = null;
  frames = 0;
  /** ms from the first frame to the end of the last one written. */
  durationMs = 0;

  constructor(
    path: string,
    private readonly config: VideoConfig,
  ) {
    const { EncodedVideoPacketSource: Source, FilePathTarget, Mp4OutputFormat, Output: Writer } = mediabunny();
    this.source = new Source('avc');
    this.output = new Writer({
      format: new Mp4OutputFormat({ fastStart: 'fragmented', minimumFragmentDuration: 1 }),
      target: new FilePathTarget(path),
    });
    this.output.addVideoTrack(this.source);
  }

  /** One access unit; `ts` its capture time (ms). The first one given must be a key frame. */
  async add(unit: Buffer, key: boolean, ts: number): Promise<void> {
    if (this.firstTs === null) {
      if (!key) throw new Error('A recording starts at a key frame');
      this.description = avcDescription(unit);
      if (!this.description) throw new Error('The first key frame has no SPS and PPS');
      this.firstTs = ts;
      await this.output.start();
    }
    // Capture times from another clock may repeat or step back: keep them strictly increasing.
    const at = Math.max(ts - this.firstTs, this.held ? this.held.at + 1 : 0);
    if (this.held) await this.write(this.held, at - this.held.at);
    this.held = { data: toAvcc(unit), key, at };
  }

  /** Writes the last frame and the file's closing boxes. */
  async finish(): Promise<void> {
    if (this.held) {
      const average = this.frames ? this.held.at / this.frames : DEFAULT_FRAME_MS;
      await this.write(this.held, Math.max(1, Math.round(average)));
      this.held = null;
    }
    if (this.output.state === 'started') await this.output.finalize();
    else await this.output.cancel();
  }

  /** Stops writing; the caller removes the file. */
  async cancel(): Promise<void> {
    if (this.output.state !== 'finalized' && this.output.state !== 'canceled') await this.output.cancel();
  }

  private async write(frame: Held, durationMs: number): Promise<void> {
    const packet = new (mediabunny().EncodedPacket)(frame.data, frame.key ? 'key' : 'delta', frame.at / 1000, durationMs / 1000);
    if (this.described) await this.source.add(packet);
    else {
      await this.source.add(packet, {
        decoderConfig: { codec: this.config.codec, codedWidth: this.config.width, codedHeight: this.config.height, description: this.description! },
      });
      this.described = true;
    }
    this.frames++;
    this.durationMs = frame.at + durationMs;
  }
}

/** The NAL units of an Annex B access unit, each behind its 4-byte length; AUD, SPS and PPS left out (they live in avcC). */
export function toAvcc(unit: Buffer): Uint8Array {
  const nals = nalUnits(unit).filter((n) => ![NAL_AUD, NAL_SPS, NAL_PPS].includes(nalType(n)));
  const out = Buffer.alloc(nals.reduce((sum, n) => sum + 4 + n.length, 0));
  let offset = 0;
  for (const nal of nals) {
    out.writeUInt32BE(nal.length, offset);
    nal.copy(out, offset + 4);
    offset += 4 + nal.length;
  }
  return out;
}

/**
 * The AVCDecoderConfigurationRecord (ISO/IEC 14496-15 §5.3.3.1) of a key frame's SPS and PPS, or
 * null when it carries none: version 1, profile, compatibility, level, 4-byte NAL lengths, then the
 * parameter sets.
 */
export function avcDescription(unit: Buffer): Uint8Array | null {
  const nals = nalUnits(unit);
  const sps = nals.filter((n) => nalType(n) === NAL_SPS);
  const pps = nals.filter((n) => nalType(n) === NAL_PPS);
  if (!sps.length || !pps.length || sps[0].length < 4) return null;
  const sets = (list: Buffer[]) => list.flatMap((n) => [Buffer.from([n.length >> 8, n.length & 0xff]), n]);
  return Buffer.concat([
    Buffer.from([1, sps[0][1], sps[0][2], sps[0][3], 0xff, 0xe0 | sps.length]),
    ...sets(sps),
    Buffer.from([pps.length]),
    ...sets(pps),
  ]);
}

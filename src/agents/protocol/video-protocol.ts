import type { BinaryPayload } from './binary-payload';

/**
 * Live video over the agent connection (docs/agents.md "Live video", an addition to
 * agent-protocol v1). The relay asks with ordinary requests (§2.4); the agent sends each H.264
 * access unit (Annex B) as one binary frame, framed like a binary response:
 * `[4-byte big-endian length N][N bytes UTF-8 JSON header][access unit]` with the header
 * `{ "type": "video", "sessionId", "seq", "key", "ts", "size" }`.
 */

/** Relay → agent request methods (params `{ sessionId }`, result `{}`; `stream_start` adds `maxBitrate`). */
export const STREAM_START = 'stream_start';
export const STREAM_STOP = 'stream_stop';
export const STREAM_KEY_FRAME = 'stream_keyframe';

/**
 * The most bits per second the relay wants from a stream (`stream_start`'s `maxBitrate`): what lets a
 * recording of the maximum duration fit under the size cap, a quarter kept for the MP4's own bytes
 * and the encoder's overshoot (libx264 ultrafast overshot a 90 % budget). 200 MiB over 30 min:
 * 699,050 bit/s. An agent fits its rate to the picture below it; one that ignores it (older agents)
 * fills the cap sooner (`max_size`).
 */
export function streamBitrateBudget(maxRecordingBytes: number, maxRecordingDurationMs: number): number {
  return Math.floor(((maxRecordingBytes * 8) / (maxRecordingDurationMs / 1000)) * 0.75);
}

/** Access units above this are dropped by the agent's splitter and by the relay (a 720×1600 key frame is ~100–300 kB). */
export const MAX_VIDEO_UNIT_BYTES = 4 * 1024 * 1024;
/** A video frame's JSON header is a few dozen bytes; a longer one is dropped without being parsed. */
export const MAX_VIDEO_HEADER_BYTES = 1024;

export interface VideoFrameHeader {
  type: 'video';
  sessionId: string;
  /** Per session, increasing by one per unit the agent produced (gaps: units it dropped). */
  seq: number;
  /** The unit holds an IDR picture (decodable on its own, with the SPS/PPS before it). */
  key: boolean;
  /** Capture time, epoch milliseconds on the agent's clock. */
  ts: number;
  /** Bytes of the access unit after the header. */
  size: number;
}

/** A video frame as the relay received it: the unit is the message's fragments, not joined. */
export interface VideoFrameMessage {
  type: 'video';
  sessionId: string;
  seq: number;
  key: boolean;
  ts: number;
  payload: BinaryPayload;
}

/** A video frame's header, checked against the payload it came with; null when it does not fit. */
export function parseVideoFrame(
  header: Record<string, unknown>,
  headerBytes: number,
  payload: BinaryPayload,
  payloadBytes: number,
): VideoFrameMessage | null {
  const { sessionId, seq, key, ts, size } = header;
  if (headerBytes > MAX_VIDEO_HEADER_BYTES) return null;
  if (typeof sessionId !== 'string' || sessionId.length === 0 || sessionId.length > 200) return null;
  if (!Number.isSafeInteger(seq) || (seq as number) < 0 || typeof key !== 'boolean') return null;
  if (typeof ts !== 'number' || !Number.isFinite(ts)) return null;
  if (size !== payloadBytes || payloadBytes === 0 || payloadBytes > MAX_VIDEO_UNIT_BYTES) return null;
  return { type: 'video', sessionId, seq: seq as number, key, ts, payload };
}

import type WebSocket from 'ws';
import { sendBinaryFrame } from '../agents/protocol/agent-protocol';
import { STREAM_KEY_FRAME, STREAM_START, STREAM_STOP, VideoFrameHeader } from '../agents/protocol/video-protocol';
import { BackendError, DeviceBackend, StreamOptions, unsupported } from './backends/device-backend';
import type { VideoStream } from './backends/encoder-process';

/** Past this much unsent on the relay connection, delta frames are dropped until the next key frame. */
const MAX_UNSENT_VIDEO_BYTES = 4 * 1024 * 1024;

interface Running {
  stream: VideoStream;
  seq: number;
  /** Frames were dropped: nothing more until a key frame (a delta frame after a gap cannot be decoded). */
  waitingForKey: boolean;
}

/**
 * The agent's side of live video (docs/agents.md "Live video"): `stream_start` / `stream_stop` /
 * `stream_keyframe` requests for a session, and each access unit the backend encodes sent as one
 * binary frame on the relay connection. Sequence numbers count every unit the backend produced,
 * so the relay sees a gap where this side dropped some (the connection was not draining).
 */
export class VideoStreams {
  private readonly running = new Map<string, Running>();

  constructor(
    private readonly backend: DeviceBackend,
    private readonly socket: () => WebSocket | null,
  ) {}

  static handles(method: string): boolean {
    return method === STREAM_START || method === STREAM_STOP || method === STREAM_KEY_FRAME;
  }

  async handle(method: string, sessionId: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    if (method === STREAM_STOP) {
      this.stop(sessionId);
      return {};
    }
    if (method === STREAM_KEY_FRAME) {
      const running = this.running.get(sessionId);
      if (!running) throw new BackendError('failed', 'No stream is running for this session');
      // `forced: false`: the encoder cannot be told; the relay then replays what it has to new viewers.
      return { forced: running.stream.requestKeyFrame() };
    }
    if (this.running.has(sessionId)) return {};
    if (!this.backend.startStream) throw unsupported(`Live video on ${this.backend.name}`);
    const entry: Running = { stream: { stop: () => undefined, requestKeyFrame: () => false }, seq: 0, waitingForKey: true };
    this.running.set(sessionId, entry);
    try {
      entry.stream = await this.backend.startStream(sessionId, (unit, key) => this.send(sessionId, entry, unit, key), streamOptionsOf(params));
    } catch (err) {
      this.running.delete(sessionId);
      throw err;
    }
    // stopped while starting
    if (this.running.get(sessionId) !== entry) entry.stream.stop();
    return {};
  }

  stop(sessionId: string): void {
    this.running.get(sessionId)?.stream.stop();
    this.running.delete(sessionId);
  }

  /** The connection is gone: the relay starts streams again when viewers come back. */
  stopAll(): void {
    for (const sessionId of [...this.running.keys()]) this.stop(sessionId);
  }

  private send(sessionId: string, entry: Running, unit: Buffer, key: boolean): void {
    if (this.running.get(sessionId) !== entry) return;
    const seq = entry.seq++;
    const socket = this.socket();
    if (!socket || socket.readyState !== socket.OPEN) return;
    if (key && socket.bufferedAmount <= MAX_UNSENT_VIDEO_BYTES) entry.waitingForKey = false;
    if (entry.waitingForKey || socket.bufferedAmount > MAX_UNSENT_VIDEO_BYTES) {
      entry.waitingForKey = true;
      return;
    }
    const header: VideoFrameHeader = { type: 'video', sessionId, seq, key, ts: Date.now(), size: unit.length };
    sendBinaryFrame(socket, header, unit);
  }
}

/** `stream_start`'s `maxBitrate` (bit/s), when the relay sent a usable one (older relays send none). */
function streamOptionsOf(params: Record<string, unknown>): StreamOptions {
  const max = params.maxBitrate;
  return typeof max === 'number' && Number.isFinite(max) && max >= 10_000 ? { maxBitrate: Math.floor(max) } : {};
}

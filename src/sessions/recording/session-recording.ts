import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import type { VideoFrame } from '../../agents/agent-video-feed';
import { sameConfig, VideoConfig } from '../../agents/protocol/h264-config';
import type { FrameSink, Offer } from '../video/video-viewer';
import { H264Mp4Writer } from './h264-mp4-writer';
import { TimelineRecorder } from './timeline-recorder';

/** Why a recording ended (the timeline's `endedBy`). */
export type EndReason = 'stopped' | 'max_duration' | 'max_size' | 'session_ended' | 'agent_offline' | 'format_changed' | 'shutdown' | 'stream_failed' | 'write_failed';

/**
 * Frames accepted but not yet written to the file. Past this the disk is slower than the stream: the
 * recording drops frames up to the next key frame (like a slow viewer) rather than hold more memory.
 */
const MAX_QUEUED_BYTES = 16 * 1024 * 1024;

export interface RecordedVideo {
  frames: number;
  durationMs: number;
  bytes: number;
  /** When its first frame was captured, on the relay's clock (epoch ms). */
  startedAt: number;
}

/**
 * One recording of a live session: a sink of the session's video hub like a viewer (so the agent
 * streams while it runs), writing each frame to an MP4 in a temp file, plus the timeline. offer()
 * never waits: writes are chained behind it, bounded by MAX_QUEUED_BYTES, so neither the agent nor
 * the viewers ever wait for the disk.
 */
export class SessionRecording implements FrameSink {
  readonly id = randomUUID();
  readonly startedAt = Date.now();
  readonly timeline = new TimelineRecorder();
  private writer: H264Mp4Writer | null = null;
  private config: VideoConfig | null = null;
  private waitingForKey = true;
  private writes: Promise<void> = Promise.resolve();
  private queuedBytes = 0;
  private acceptedBytes = 0;
  private firstTs = 0;
  /** Smallest (arrival − capture time) of live frames: the agent's clock to the relay's (plus the least latency). */
  private clockOffset = Infinity;
  private closed = false;
  framesDropped = 0;
  failure: Error | null = null;

  constructor(
    readonly sessionId: string,
    public buildId: number | null,
    readonly startedBy: { userId: number; label: string },
    readonly videoPath: string,
    private readonly maxBytes: number,
    private readonly end: (reason: EndReason) => void,
  ) {}

  offer(frame: VideoFrame, config: VideoConfig | null, replay = false): Offer {
    if (this.closed || this.failure) return 'skipped';
    if (this.waitingForKey && (!frame.key || !config)) return 'skipped';
    if (frame.key && config && this.config && !sameConfig(config, this.config)) {
      // One MP4 track has one size: a rotated or resized screen ends the recording with what it has.
      this.end('format_changed');
      return 'skipped';
    }
    if (this.queuedBytes > MAX_QUEUED_BYTES) {
      this.waitingForKey = true;
      this.framesDropped++;
      return 'behind';
    }
    if (this.acceptedBytes + frame.unit.length > this.maxBytes) {
      this.end('max_size');
      return 'skipped';
    }
    if (!this.writer) {
      this.config = config;
      this.firstTs = frame.ts;
      this.writer = new H264Mp4Writer(this.videoPath, config!);
    }
    this.waitingForKey = false;
    if (!replay) this.clockOffset = Math.min(this.clockOffset, Date.now() - frame.ts);
    const size = frame.unit.length;
    this.acceptedBytes += size;
    this.queuedBytes += size;
    const writer = this.writer;
    this.writes = this.writes
      .then(() => writer.add(frame.unit, frame.key, frame.ts))
      .catch((err: Error) => {
        this.failure ??= err;
      })
      .finally(() => {
        this.queuedBytes -= size;
      });
    return 'sent';
  }

  /** Whether a frame was taken yet (the first key frame starts the video). */
  get hasVideo(): boolean {
    return this.writer !== null;
  }

  get behind(): boolean {
    return this.waitingForKey;
  }

  /** Takes no more frames, writes what is queued and closes the file; null when not one frame was recorded. */
  async finish(): Promise<RecordedVideo | null> {
    this.closed = true;
    await this.writes;
    if (this.failure) throw this.failure;
    if (!this.writer) return null;
    await this.writer.finish();
    const offset = Number.isFinite(this.clockOffset) ? this.clockOffset : this.startedAt - this.firstTs;
    return { frames: this.writer.frames, durationMs: Math.round(this.writer.durationMs), bytes: this.acceptedBytes, startedAt: this.firstTs + offset };
  }

  /** Leaves nothing behind: the writer stopped, the temp file removed. */
  async discard(): Promise<void> {
    this.closed = true;
    await this.writes;
    await this.writer?.cancel().catch(() => undefined);
    await rm(this.videoPath, { force: true });
  }
}

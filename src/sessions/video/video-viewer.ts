import type { WebSocket } from 'ws';
import type { VideoFrame } from '../../agents/agent-video-feed';
import { sendBinaryFrame } from '../../agents/protocol/agent-protocol';
import { sameConfig, VideoConfig } from '../../agents/protocol/h264-config';

/**
 * A viewer's queue: what its socket has not yet handed to the kernel. Past this, the viewer is behind:
 * frames are dropped for it (not queued) until a key frame finds it drained again.
 */
export const MAX_VIEWER_UNSENT_BYTES = 1024 * 1024;
/**
 * A viewer whose socket has not answered the relay's ping for this long is behind as well, however
 * little the relay still holds: the rest waits in the kernel's socket buffers (several MiB on
 * loopback or a fast LAN, which is many seconds of video on a slow link).
 */
export const MAX_VIEWER_LAG_MS = 1000;
/** How often a viewer's lag is measured: a ping travels behind every frame already written, its pong comes back once they are read. */
const LAG_PROBE_MS = 250;
const LAG_PROBE = Buffer.from('lag');
/**
 * A viewer that falls behind again within this long of catching up cannot sustain the stream (its
 * link is slower than the video): each key frame asked for it costs every viewer a large frame and
 * the agent an encoder switch, so it is asked for after 1, 2, 4, then at most 8 s (the agent's
 * periodic key frames still serve it).
 */
const RELAPSE_MS = 5000;
/** A lag probe answered this fast while a viewer waits means its link has recovered: it is asked for at once again. */
const FAST_LINK_MS = 100;
const MAX_ASK_BACKOFF_MS = 8000;
/** A viewer's own key-frame requests count at most this often (each one also holds back its frames until a key frame). */
const VIEWER_KEY_FRAME_ASK_MS = 1000;

/** What happened to a frame offered to a viewer. */
export type Offer = 'sent' | 'skipped' | 'behind';

/** Whoever takes a session's frames from the hub: a viewer's socket here, or another instance with viewers (video-across-instances.ts). */
export interface FrameSink {
  offer(frame: VideoFrame, config: VideoConfig | null, replay?: boolean): Offer;
  /** Waiting for a key frame (it fell behind, or has seen none yet). */
  readonly behind: boolean;
  /** Waiting for a key frame and able to take one now (drained): worth asking the agent for one (absent: never). */
  readonly needsKeyFrame?: boolean;
}

/**
 * One viewer of a session's live video (GET /sessions/:sessionId/stream): a config message before
 * its first frame and whenever the config changes, then each frame as
 * `[4-byte length N][JSON { seq, key, ts }][access unit]`. It starts at a key frame, and after
 * falling behind (over MAX_VIEWER_UNSENT_BYTES unsent, or a ping unanswered for MAX_VIEWER_LAG_MS)
 * it drops frames up to the next key frame it can take, so a slow link costs only its own frames,
 * never the agent's or the other viewers', and what it gets stays live.
 */
export class VideoViewer implements FrameSink {
  private waitingForKey = true;
  private sentConfig: VideoConfig | null = null;
  private lastKeyFrameAsk = 0;
  /** When the lag probe now unanswered was sent (null: none is). */
  private probeSentAt: number | null = null;
  private lastProbe = 0;
  private caughtUpAt = 0;
  private askBackoffMs = 0;
  private nextAskAt = 0;
  framesSent = 0;
  framesDropped = 0;

  constructor(readonly socket: WebSocket) {
    socket.on('pong', (data: Buffer) => {
      if (!LAG_PROBE.equals(data) || this.probeSentAt === null) return;
      // A quick answer while waiting: the link is fast again (it recovered), so no backoff.
      if (this.waitingForKey && Date.now() - this.probeSentAt <= FAST_LINK_MS) this.nextAskAt = 0;
      this.probeSentAt = null;
    });
  }

  get open(): boolean {
    return this.socket.readyState === this.socket.OPEN;
  }

  /** `replay`: part of the current group of pictures sent at once to a new viewer (bounded by the hub), past the queue bound. */
  offer(frame: VideoFrame, config: VideoConfig | null, replay = false): Offer {
    if (!this.open) return 'skipped';
    const now = Date.now();
    this.probe(now);
    if (this.waitingForKey && !frame.key) {
      this.framesDropped++;
      return 'skipped';
    }
    if (!replay && (this.socket.bufferedAmount > MAX_VIEWER_UNSENT_BYTES || this.lagging(now))) {
      if (!this.waitingForKey) this.fellBehind(now);
      this.waitingForKey = true;
      this.framesDropped++;
      return 'behind';
    }
    if (frame.key && !config) {
      // A key frame without a readable SPS cannot configure a decoder: wait for the next.
      this.framesDropped++;
      return 'skipped';
    }
    if (this.waitingForKey) this.caughtUpAt = now;
    this.waitingForKey = false;
    if (config && !sameConfig(config, this.sentConfig)) {
      this.socket.send(JSON.stringify({ type: 'config', ...config }));
      this.sentConfig = config;
    }
    sendBinaryFrame(this.socket, { seq: frame.seq, key: frame.key, ts: frame.ts }, frame.unit);
    this.framesSent++;
    return 'sent';
  }

  get behind(): boolean {
    return this.waitingForKey;
  }

  get needsKeyFrame(): boolean {
    const now = Date.now();
    return this.waitingForKey && this.open && now >= this.nextAskAt && this.socket.bufferedAmount <= MAX_VIEWER_UNSENT_BYTES && !this.lagging(now);
  }

  private fellBehind(now: number): void {
    const relapse = now - this.caughtUpAt < RELAPSE_MS;
    this.askBackoffMs = relapse ? Math.min(MAX_ASK_BACKOFF_MS, Math.max(1000, this.askBackoffMs * 2)) : 0;
    this.nextAskAt = now + this.askBackoffMs;
  }

  private lagging(now: number): boolean {
    return this.probeSentAt !== null && now - this.probeSentAt > MAX_VIEWER_LAG_MS;
  }

  private probe(now: number): void {
    if (this.probeSentAt !== null || now - this.lastProbe < LAG_PROBE_MS) return;
    this.probeSentAt = this.lastProbe = now;
    this.socket.ping(LAG_PROBE);
  }

  /**
   * The viewer's decoder lost its place and asks for a key frame: from now on it gets nothing until
   * one. False when it already asked within the last second (the request is ignored).
   */
  askedForKeyFrame(now = Date.now()): boolean {
    if (now - this.lastKeyFrameAsk < VIEWER_KEY_FRAME_ASK_MS) return false;
    this.lastKeyFrameAsk = now;
    this.waitingForKey = true;
    return true;
  }
}

/** A viewer's text message `{ "type": "keyframe" }`; anything else a viewer sends is ignored. */
export function isKeyFrameRequest(data: Buffer, isBinary: boolean): boolean {
  if (isBinary) return false;
  try {
    return (JSON.parse(data.toString('utf8')) as { type?: unknown } | null)?.type === 'keyframe';
  } catch {
    return false;
  }
}

import type { WebSocket } from 'ws';
import type { VideoFrame } from '../../agents/agent-video-feed';
import { sendBinaryFrame } from '../../agents/protocol/agent-protocol';
import { sameConfig, VideoConfig } from '../../agents/protocol/h264-config';

/**
 * A viewer's queue: what its socket has not yet handed to the kernel. Past this, the viewer is behind:
 * frames are dropped for it (not queued) until a key frame finds it drained again.
 */
export const MAX_VIEWER_UNSENT_BYTES = 1024 * 1024;
/** A viewer's own key-frame requests count at most this often (each one also holds back its frames until a key frame). */
const VIEWER_KEY_FRAME_ASK_MS = 1000;

/** What happened to a frame offered to a viewer. */
export type Offer = 'sent' | 'skipped' | 'behind';

/** Whoever takes a session's frames from the hub: a viewer's socket here, or another instance with viewers (video-across-instances.ts). */
export interface FrameSink {
  offer(frame: VideoFrame, config: VideoConfig | null, replay?: boolean): Offer;
  /** Waiting for a key frame (it fell behind, or has seen none yet). */
  readonly behind: boolean;
}

/**
 * One viewer of a session's live video (GET /sessions/:sessionId/stream): a config message before
 * its first frame and whenever the config changes, then each frame as
 * `[4-byte length N][JSON { seq, key, ts }][access unit]`. It starts at a key frame, and after
 * falling behind it drops delta frames up to the next key frame it can take, so a slow link costs
 * only its own frames, never the agent's or the other viewers'.
 */
export class VideoViewer implements FrameSink {
  private waitingForKey = true;
  private sentConfig: VideoConfig | null = null;
  private lastKeyFrameAsk = 0;
  framesSent = 0;
  framesDropped = 0;

  constructor(readonly socket: WebSocket) {}

  get open(): boolean {
    return this.socket.readyState === this.socket.OPEN;
  }

  /** `replay`: part of the current group of pictures sent at once to a new viewer (bounded by the hub), past the queue bound. */
  offer(frame: VideoFrame, config: VideoConfig | null, replay = false): Offer {
    if (!this.open) return 'skipped';
    if (this.waitingForKey && !frame.key) {
      this.framesDropped++;
      return 'skipped';
    }
    if (!replay && this.socket.bufferedAmount > MAX_VIEWER_UNSENT_BYTES) {
      this.waitingForKey = true;
      this.framesDropped++;
      return 'behind';
    }
    if (frame.key && !config) {
      // A key frame without a readable SPS cannot configure a decoder: wait for the next.
      this.framesDropped++;
      return 'skipped';
    }
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

  /**
   * The viewer's decoder lost its place and asks for a key frame: from now on it gets nothing until
   * one. False when it already asked within the last second (the request is ignored).
   */
  wantsKeyFrame(now = Date.now()): boolean {
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

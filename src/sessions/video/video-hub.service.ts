import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { AgentLocator } from '../../agents/agent-locator.service';
import { AgentRouter } from '../../agents/agent-router.service';
import type { RpcOutcome } from '../../agents/agent-rpc.service';
import { AgentVideoFeed, VideoFrame } from '../../agents/agent-video-feed';
import { videoConfigOf, VideoConfig } from '../../agents/protocol/h264-config';
import { STREAM_KEY_FRAME, STREAM_START, STREAM_STOP, streamBitrateBudget } from '../../agents/protocol/video-protocol';
import { ErrorMessages } from '../../common/errors/error-messages';
import { RelayConfig } from '../../config/relay-config';
import type { FrameSink } from './video-viewer';

/** The current group of pictures (key frame and the deltas since) is kept for new viewers up to this. */
const MAX_REPLAY_BYTES = 8 * 1024 * 1024;
const MAX_REPLAY_FRAMES = 300;
/** At most one key-frame request per session this often. */
export const KEY_FRAME_REQUEST_INTERVAL_MS = 1000;
/**
 * A group of pictures at most this old is replayed to a new viewer at once (a burst of at most a
 * second of frames, decoded in a few dozen ms); an older one would be a burst of stale pictures,
 * so the agent is asked for a key frame instead.
 */
export const MAX_REPLAY_AGE_MS = 1000;
/** A viewer waiting for a key frame asked of the agent gets the replay after this if none came. */
export const KEY_FRAME_WAIT_MS = 1000;
/**
 * A watched session whose agent sent nothing for this long is asked to start again (`stream_start`
 * is idempotent): its agent reconnected or was replaced under the same name (the new connection
 * knows nothing of the stream), or its encoder died.
 */
export const STREAM_SILENCE_MS = 5000;

/** How the hub reaches an agent held by another instance (set by VideoAcrossInstances when clustered). */
export interface RemoteHolders {
  /** Whether frames of an agent held by `instanceId` can be had from it. */
  reaches(instanceId: string): boolean;
  /** Tells the holding instance this one wants (or no longer wants) the session's frames. */
  watch(sessionId: string, instanceId: string, watching: boolean): void;
  /** Asks the holding instance for a key frame of the session (it asks its agent, rate-limited there too). */
  requestKeyFrame(sessionId: string, instanceId: string): void;
}

interface SessionVideo {
  sessionId: string;
  /** Each sink with what to do when the stream cannot start (a viewer's socket closes, a recording ends). */
  viewers: Map<FrameSink, (failure: StreamFailure) => void>;
  /** The instance holding the agent, when that is not this one: its frames come through Redis. */
  holder: string | null;
  config: VideoConfig | null;
  /** Key frame first, then every delta since; null when it outgrew the bounds (new viewers wait for a key frame). */
  replay: VideoFrame[] | null;
  replayBytes: number;
  /** When (relay clock) the replay's key frame arrived. */
  keyAt: number;
  /** Viewers waiting for the key frame the agent was asked for (new ones, and those that asked). */
  waiting: Set<FrameSink>;
  waitTimer: NodeJS.Timeout | null;
  /** The agent said it cannot make key frames on request: new viewers get the replay, however old. */
  periodicKeyFramesOnly: boolean;
  lastSeq: number;
  lastKeyRequest: number;
  /** When the agent last sent a frame or was asked to start. */
  lastHeard: number;
}

/** How a stream could not start, for the viewers' close. */
export interface StreamFailure {
  code: number;
  reason: string;
}

/**
 * Live video of device sessions to their viewers (docs/agents.md "Live video"). The first viewer of
 * a session makes the owning agent start streaming (`stream_start`, through the router as any request);
 * the last one leaving stops it (`stream_stop`). Each frame the agent sends goes to every viewer
 * (FrameSink decides per viewer: a slow one drops frames, nobody waits for it). A new viewer starts
 * at a key frame: the current group of pictures replayed at once when it is young, else a fresh key
 * frame asked of the agent (`stream_keyframe`), with the replay as the fallback.
 */
@Injectable()
export class VideoHub implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('LiveVideo');
  private readonly sessions = new Map<string, SessionVideo>();
  private unsubscribe: () => void = () => undefined;
  private watchdog: NodeJS.Timeout | null = null;
  private remote: RemoteHolders | null = null;
  /** Sessions whose agent streams though nobody here watches, with when it was last told to stop. */
  private readonly unwatched = new Map<string, number>();

  constructor(
    private readonly feed: AgentVideoFeed,
    private readonly locator: AgentLocator,
    private readonly router: AgentRouter,
    private readonly config: RelayConfig,
  ) {}

  onModuleInit(): void {
    this.unsubscribe = this.feed.subscribe((frame) => this.fromOwnAgent(frame));
    this.watchdog = setInterval(() => this.keepStreamsGoing(), STREAM_SILENCE_MS / 2);
    this.watchdog.unref();
  }

  onModuleDestroy(): void {
    this.unsubscribe();
    if (this.watchdog) clearInterval(this.watchdog);
  }

  useRemoteHolders(remote: RemoteHolders): void {
    this.remote = remote;
  }

  /** A viewer arrived; `failed` is called if the agent cannot stream (its viewers are then closed). */
  join(sessionId: string, viewer: FrameSink, failed: (failure: StreamFailure) => void): void {
    let session = this.sessions.get(sessionId);
    if (!session) {
      session = {
        sessionId,
        viewers: new Map(),
        holder: null,
        config: null,
        replay: null,
        replayBytes: 0,
        keyAt: 0,
        waiting: new Set(),
        waitTimer: null,
        periodicKeyFramesOnly: false,
        lastSeq: -1,
        lastKeyRequest: 0,
        lastHeard: Date.now(),
      };
      this.sessions.set(sessionId, session);
      void this.start(session);
    }
    session.viewers.set(viewer, failed);
    // Nothing received yet: the stream's first unit is a key frame.
    if (session.lastSeq < 0) return;
    const young = Date.now() - session.keyAt <= MAX_REPLAY_AGE_MS;
    if (session.replay && (young || session.periodicKeyFramesOnly)) this.replay(session, viewer);
    else this.awaitKeyFrame(session, viewer);
  }

  /**
   * A viewer asked for a key frame (its decoder lost its place): it gets nothing more until one, and
   * the agent is asked (at most once a second per session, whoever asks).
   */
  keyFrameWanted(sessionId: string, viewer: FrameSink): void {
    const session = this.sessions.get(sessionId);
    if (session?.viewers.has(viewer)) this.awaitKeyFrame(session, viewer);
  }

  /** The instance holding the agent, for an instance whose viewers wait: ask the agent for a key frame. */
  requestKeyFrame(sessionId: string): void {
    const session = this.sessions.get(sessionId);
    if (session) this.askForKeyFrame(session);
  }

  private replay(session: SessionVideo, viewer: FrameSink): void {
    for (const frame of session.replay ?? []) viewer.offer(frame, session.config, true);
  }

  private awaitKeyFrame(session: SessionVideo, viewer: FrameSink): void {
    session.waiting.add(viewer);
    this.askForKeyFrame(session);
    session.waitTimer ??= setTimeout(() => this.replayToWaiting(session), KEY_FRAME_WAIT_MS);
  }

  /** No key frame came (an agent that cannot make one, a lost request): the waiting viewers get the replay. */
  private replayToWaiting(session: SessionVideo): void {
    this.stopWaiting(session);
    const waiting = [...session.waiting];
    session.waiting.clear();
    for (const viewer of waiting) if (session.viewers.has(viewer) && viewer.behind) this.replay(session, viewer);
  }

  private stopWaiting(session: SessionVideo): void {
    if (session.waitTimer) clearTimeout(session.waitTimer);
    session.waitTimer = null;
  }

  leave(sessionId: string, viewer: FrameSink): void {
    const session = this.sessions.get(sessionId);
    session?.waiting.delete(viewer);
    if (!session?.viewers.delete(viewer) || session.viewers.size) return;
    this.stopWaiting(session);
    this.sessions.delete(sessionId);
    if (session.holder) return this.remote?.watch(sessionId, session.holder, false);
    // Frames already on their way are not a reason to tell it again.
    this.unwatched.set(sessionId, Date.now());
    void this.tell(sessionId, STREAM_STOP).then((outcome) => {
      if (outcome.kind !== 'ok' && outcome.kind !== 'offline') {
        this.logger.warn(`Stopping the live video of ${sessionId} failed (${outcome.kind})`);
      }
    });
  }

  /**
   * Agent here: `stream_start`. Agent on another instance: that instance is asked for the frames
   * (it starts its agent as for a viewer of its own) and they come through Redis.
   */
  private async start(session: SessionVideo): Promise<void> {
    const holder = await this.remoteHolder(session.sessionId);
    if (holder) {
      session.holder = holder;
      return this.remote!.watch(session.sessionId, holder, true);
    }
    session.holder = null;
    // Every stream may end up in a recording: the rate that lets its longest one fit (docs/recordings.md "Size").
    const maxBitrate = streamBitrateBudget(this.config.maxRecordingBytes, this.config.maxRecordingDurationMs);
    const outcome = await this.tell(session.sessionId, STREAM_START, { maxBitrate });
    if (outcome.kind === 'ok') return;
    this.fail(session.sessionId, streamFailure(outcome));
  }

  /** The stream of a session cannot start: its viewers are closed with `failure`. */
  fail(sessionId: string, failure: StreamFailure): void {
    const session = this.sessions.get(sessionId);
    if (!session) return;
    this.logger.warn(`The live video of ${sessionId} did not start: ${failure.reason}`);
    this.stopWaiting(session);
    this.sessions.delete(sessionId);
    // Each distinct callback once (a viewer's closes every viewer of the session: a second call finds them closing).
    for (const failed of new Set(session.viewers.values())) failed(failure);
  }

  /** The instance holding the session's agent, when it is another one this instance can reach. */
  private async remoteHolder(sessionId: string): Promise<string | null> {
    if (!this.remote) return null;
    const place = await this.locator.locate(sessionId).catch(() => null);
    if (!place || place.connection || !place.instanceId || !this.remote.reaches(place.instanceId)) return null;
    return place.instanceId;
  }

  /**
   * A frame from an agent socket here. An agent streaming a session nobody watches (its stop was
   * lost, or it started on its own) is told to stop, at most once per STREAM_SILENCE_MS.
   */
  private fromOwnAgent(frame: VideoFrame): void {
    if (this.sessions.has(frame.sessionId)) return this.frame(frame);
    const now = Date.now();
    if (now - (this.unwatched.get(frame.sessionId) ?? 0) < STREAM_SILENCE_MS) return;
    this.unwatched.set(frame.sessionId, now);
    void this.tell(frame.sessionId, STREAM_STOP);
  }

  /** A frame from this instance's agent socket, or from the instance holding the agent. */
  frame(frame: VideoFrame): void {
    const session = this.sessions.get(frame.sessionId);
    // Frames of a stream nobody watches (still arriving after the stop) and replays out of order are dropped.
    if (!session) return;
    session.lastHeard = Date.now();
    // A restarted agent counts from 0 again: a key frame may start a new sequence; a delta must go up.
    if (frame.seq <= session.lastSeq && !frame.key) return;
    session.lastSeq = frame.seq;
    if (frame.key) {
      session.config = videoConfigOf(frame.unit) ?? session.config;
      session.replay = [frame];
      session.replayBytes = frame.unit.length;
      session.keyAt = Date.now();
      // The waiting viewers take this one below.
      session.waiting.clear();
      this.stopWaiting(session);
    } else if (session.replay) {
      session.replayBytes += frame.unit.length;
      session.replay.push(frame);
      if (session.replayBytes > MAX_REPLAY_BYTES || session.replay.length > MAX_REPLAY_FRAMES) session.replay = null;
    }
    // A viewer that fell behind is asked for once it can take a key frame (drained), not while its link is still full.
    let needs = false;
    for (const viewer of session.viewers.keys()) {
      viewer.offer(frame, session.config);
      needs ||= viewer.needsKeyFrame === true;
    }
    if (needs && !frame.key) this.askForKeyFrame(session);
  }

  /**
   * Every half silence: the holders of remote agents hear again that frames are wanted (their
   * lease); a stream silent for STREAM_SILENCE_MS is started again (wherever its agent is now).
   */
  private keepStreamsGoing(): void {
    const now = Date.now();
    for (const [sessionId, at] of this.unwatched) if (now - at >= STREAM_SILENCE_MS) this.unwatched.delete(sessionId);
    for (const session of this.sessions.values()) {
      if (now - session.lastHeard >= STREAM_SILENCE_MS) {
        session.lastHeard = now;
        void this.start(session);
      } else if (session.holder) this.remote?.watch(session.sessionId, session.holder, true);
    }
  }

  /**
   * At most once a second per session (a request within the second is served by the key frame
   * already asked for). An agent answering `{ forced: false }`, or not knowing the method, cannot
   * make one: its periodic key frames serve and new viewers get the replay at once from then on.
   */
  private askForKeyFrame(session: SessionVideo): void {
    const now = Date.now();
    if (now - session.lastKeyRequest < KEY_FRAME_REQUEST_INTERVAL_MS) return;
    session.lastKeyRequest = now;
    if (session.holder) return this.remote?.requestKeyFrame(session.sessionId, session.holder);
    void this.tell(session.sessionId, STREAM_KEY_FRAME).then((outcome) => {
      const cannot = outcome.kind === 'error' || (outcome.kind === 'ok' && (outcome.result as { forced?: unknown } | null)?.forced !== true);
      if (!cannot || this.sessions.get(session.sessionId) !== session) return;
      session.periodicKeyFramesOnly = true;
      this.replayToWaiting(session);
    });
  }

  private async tell(sessionId: string, method: string, params: Record<string, unknown> = {}): Promise<RpcOutcome> {
    try {
      const place = await this.locator.locate(sessionId);
      if (!place) return { kind: 'offline' };
      return await this.router.call(place, method, { ...params, sessionId }, this.config.agents.requestTimeoutMs);
    } catch (err) {
      this.logger.error(`Asking for ${method} on ${sessionId} failed: ${(err as Error).message}`);
      return { kind: 'offline' };
    }
  }
}

/** Close code and reason for viewers of a stream that did not start (a close reason is at most 123 bytes). */
function streamFailure(outcome: RpcOutcome): StreamFailure {
  switch (outcome.kind) {
    case 'error':
      return { code: 1011, reason: Buffer.from(outcome.message || outcome.code).subarray(0, 100).toString('utf8') };
    case 'timeout':
      return { code: 1011, reason: 'The agent did not start the video in time' };
    case 'busy':
      return { code: 1013, reason: 'Agent is busy; try again' };
    default:
      return { code: 4502, reason: ErrorMessages.agentOffline };
  }
}

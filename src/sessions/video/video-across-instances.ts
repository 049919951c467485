import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type { z } from 'zod';
import type { VideoFrame } from '../../agents/agent-video-feed';
import { binaryFramePrefix, decodeBinaryFrame } from '../../agents/protocol/agent-protocol';
import { MAX_VIDEO_HEADER_BYTES, MAX_VIDEO_UNIT_BYTES } from '../../agents/protocol/video-protocol';
import { ClusterBus } from '../../cluster/cluster-bus';
import { clusterSchema } from '../../cluster/cluster-schema';
import { StreamFailure, STREAM_SILENCE_MS, VideoHub } from './video-hub.service';
import type { FrameSink, Offer } from './video-viewer';

/** A watching instance that has not renewed its interest for this long is forgotten (it renews every half silence). */
const WATCH_LEASE_MS = 3 * STREAM_SILENCE_MS;
const MAX_FRAME_MESSAGE_BYTES = MAX_VIDEO_UNIT_BYTES + MAX_VIDEO_HEADER_BYTES + 4;

const watchSchema = clusterSchema((z) =>
  z.object({
    sessionId: z.string().min(1).max(200),
    instanceId: z.uuid(),
    watching: z.boolean(),
    /** The watcher's viewers wait for a key frame: the holder asks its agent for one (rate-limited there). */
    keyFrame: z.literal(true).optional(),
  }),
);
type Watch = z.infer<ReturnType<typeof watchSchema>>;

const frameHeaderSchema = clusterSchema((z) =>
  z.union([
    z.object({ sessionId: z.string().min(1).max(200), seq: z.int().min(0), key: z.boolean(), ts: z.number() }),
    z.object({ sessionId: z.string().min(1).max(200), failure: z.object({ code: z.int(), reason: z.string().max(200) }) }),
  ]),
);

/**
 * Live video with several instances (docs/scaling.md, docs/agents.md "Live video across
 * instances"): frames cross Redis once per watching instance, not per viewer. An instance with
 * viewers of a session whose agent another instance holds publishes `{ sessionId, instanceId,
 * watching }` on the holder's watch channel (again every half STREAM_SILENCE_MS as a lease); the
 * holder adds that instance to the session as one more sink of its hub (so its agent starts,
 * replays and stops exactly as for local viewers) and publishes each frame on the watcher's frames
 * channel, where the watcher's hub takes it like a frame from its own agent. Both channels carry
 * only messages signed with the cluster secret and of these shapes (ClusterBus).
 */
@Injectable()
export class VideoAcrossInstances implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('LiveVideo');
  /** Instances watching sessions whose agent is here, by `sessionId instanceId`. */
  private readonly watchers = new Map<string, RemoteWatcher>();
  private expiry: NodeJS.Timeout | null = null;

  constructor(
    private readonly bus: ClusterBus,
    private readonly hub: VideoHub,
  ) {}

  async onModuleInit(): Promise<void> {
    if (!this.bus.clustered) return;
    this.hub.useRemoteHolders({
      reaches: (instanceId) => instanceId !== this.bus.instanceId,
      watch: (sessionId, instanceId, watching) => this.publish(watchChannel(instanceId), JSON.stringify({ sessionId, instanceId: this.bus.instanceId, watching })),
      requestKeyFrame: (sessionId, instanceId) =>
        this.publish(watchChannel(instanceId), JSON.stringify({ sessionId, instanceId: this.bus.instanceId, watching: true, keyFrame: true })),
    });
    await this.bus.subscribeJson(watchChannel(this.bus.instanceId), watchSchema, (watch) => this.watched(watch));
    await this.bus.subscribe(framesChannel(this.bus.instanceId), MAX_FRAME_MESSAGE_BYTES, (message) => this.received(message));
    this.expiry = setInterval(() => this.forgetSilentWatchers(), STREAM_SILENCE_MS);
    this.expiry.unref();
  }

  onModuleDestroy(): void {
    if (this.expiry) clearInterval(this.expiry);
  }

  /** Holder side: another instance wants (or no longer wants) a session's frames. */
  private watched({ sessionId, instanceId, watching, keyFrame }: Watch): void {
    const key = `${sessionId} ${instanceId}`;
    const known = this.watchers.get(key);
    if (!watching) {
      this.watchers.delete(key);
      if (known) this.hub.leave(sessionId, known);
      return;
    }
    if (known) {
      known.renewed = Date.now();
      if (keyFrame) this.hub.requestKeyFrame(sessionId);
      return;
    }
    const watcher = new RemoteWatcher(sessionId, (header, unit) => this.publish(framesChannel(instanceId), [binaryFramePrefix(header), ...unit]));
    this.watchers.set(key, watcher);
    this.hub.join(sessionId, watcher, (failure) => {
      this.watchers.delete(key);
      void this.publish(framesChannel(instanceId), [binaryFramePrefix({ sessionId, failure })]);
    });
  }

  /** Watcher side: a frame (or the news that the stream cannot start) from the holder. */
  private received(message: Buffer): void {
    const frame = decodeBinaryFrame(message);
    const header = frame && frameHeaderSchema().safeParse(frame.header);
    if (!frame || !header?.success) {
      return this.bus.reportDropped(this.bus.key(framesChannel(this.bus.instanceId)), 'not a video frame', message);
    }
    const value = header.data;
    if ('failure' in value) return this.hub.fail(value.sessionId, value.failure as StreamFailure);
    if (!frame.payload.length) return;
    this.hub.frame({ sessionId: value.sessionId, seq: value.seq, key: value.key, ts: value.ts, unit: frame.payload });
  }

  private forgetSilentWatchers(): void {
    const now = Date.now();
    for (const [key, watcher] of this.watchers) {
      if (now - watcher.renewed < WATCH_LEASE_MS) continue;
      this.watchers.delete(key);
      this.hub.leave(watcher.sessionId, watcher);
    }
  }

  private async publish(channel: string, message: string | Buffer[]): Promise<void> {
    try {
      await this.bus.publish(channel, message);
    } catch (err) {
      this.logger.warn(`Live video through Redis (${channel}) failed: ${(err as Error).message}`);
    }
  }
}

/**
 * Another instance as one sink of a session here: every frame is published to it once, whatever
 * its viewers' pace (each of them is bounded by its own instance's VideoViewer).
 */
class RemoteWatcher implements FrameSink {
  renewed = Date.now();
  readonly behind = false;

  constructor(
    readonly sessionId: string,
    private readonly send: (header: object, unit: Buffer[]) => Promise<void>,
  ) {}

  offer(frame: VideoFrame): Offer {
    void this.send({ sessionId: frame.sessionId, seq: frame.seq, key: frame.key, ts: frame.ts }, [frame.unit]);
    return 'sent';
  }
}

const watchChannel = (instanceId: string) => `video:watch:${instanceId}`;
const framesChannel = (instanceId: string) => `video:frames:${instanceId}`;

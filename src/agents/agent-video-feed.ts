import { Injectable } from '@nestjs/common';
import { PayloadPool } from '../platform/ws/payload-pool';
import type { VideoFrameMessage } from './protocol/video-protocol';

/** One access unit of a session's live video, as its agent sent it, in one buffer of its own. */
export interface VideoFrame {
  sessionId: string;
  seq: number;
  key: boolean;
  ts: number;
  unit: Buffer;
}

export type VideoFrameSink = (frame: VideoFrame) => void;

/**
 * Where the agent gateway hands live video frames (docs/agents.md "Live video"), for the device
 * sessions' viewers to take: frames are too many for the event bus, and the agents module may not
 * import the sessions module. The unit is copied out of the socket's reads once (a frame may sit
 * in a viewer's replay for seconds; a pooled buffer goes straight back to the pool).
 */
@Injectable()
export class AgentVideoFeed {
  private readonly sinks = new Set<VideoFrameSink>();

  constructor(private readonly payloads: PayloadPool) {}

  subscribe(sink: VideoFrameSink): () => void {
    this.sinks.add(sink);
    return () => this.sinks.delete(sink);
  }

  publish(message: VideoFrameMessage): void {
    const unit = Buffer.concat(message.payload as Buffer[]);
    this.payloads.release(message.payload);
    const frame: VideoFrame = { sessionId: message.sessionId, seq: message.seq, key: message.key, ts: message.ts, unit };
    for (const sink of this.sinks) sink(frame);
  }
}

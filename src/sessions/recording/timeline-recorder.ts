import { isoWithMillis } from '../../common/time';
import type { RecordingTimeline, TimelineEvent, TimelineSnapshot } from '../../recordings/recording-timeline.mapper';
import type { DeviceActionEvent } from '../events/device-action.event';
import type { UiElement } from '../../agents/protocol/ui-tree';

/** Bounds of one timeline (docs/recordings.md): past them, more is left out and `truncated` says so. */
export const MAX_TIMELINE_EVENTS = 5000;
export const MAX_SNAPSHOT_ELEMENTS = 2000;
export const MAX_SNAPSHOT_BYTES = 8 * 1024 * 1024;
/** A swipe that stays in place this long is a long press. */
const LONG_PRESS_MS = 500;

interface Timed<T> {
  /** Relay clock, epoch ms. */
  time: number;
  value: T;
}

/**
 * What was done on a session while it was recorded: device actions and UI-tree snapshots, held on
 * the relay's clock until the recording ends, when they are placed on the video's time line.
 */
export class TimelineRecorder {
  private readonly events: Timed<Omit<TimelineEvent, 'at'>>[] = [];
  private readonly snapshots: Timed<UiElement[]>[] = [];
  private lastSnapshot = '';
  private snapshotBytes = 0;
  private truncated = false;

  action(event: DeviceActionEvent): void {
    if (this.events.length >= MAX_TIMELINE_EVENTS) {
      this.truncated = true;
      return;
    }
    this.events.push({
      time: event.requestedAt,
      value: { type: typeOf(event), by: event.by, via: event.via, outcome: event.outcome, detail: event.detail },
    });
  }

  /** A UI tree read at `time`; kept when it differs from the last one kept. */
  snapshot(time: number, elements: UiElement[]): void {
    if (elements.length > MAX_SNAPSHOT_ELEMENTS) {
      elements = elements.slice(0, MAX_SNAPSHOT_ELEMENTS);
      this.truncated = true;
    }
    const json = JSON.stringify(elements);
    if (json === this.lastSnapshot) return;
    if (this.snapshotBytes + json.length > MAX_SNAPSHOT_BYTES) {
      this.truncated = true;
      return;
    }
    this.lastSnapshot = json;
    this.snapshotBytes += json.length;
    this.snapshots.push({ time, value: elements });
  }

  /** The timeline of a video whose first frame was captured at `videoStart` (relay clock) and lasts `durationMs`. */
  build(meta: { sessionId: string; buildId: number | null; endedBy: string }, videoStart: number, durationMs: number): RecordingTimeline {
    const at = (time: number) => Math.min(Math.max(0, Math.round(time - videoStart)), durationMs);
    const events: TimelineEvent[] = this.events.map(({ time, value }) => ({ at: at(time), ...value }));
    const snapshots: TimelineSnapshot[] = this.snapshots.map(({ time, value }) => ({ at: at(time), tree: { elements: value } }));
    return {
      sessionId: meta.sessionId,
      buildId: meta.buildId,
      startedAt: isoWithMillis(new Date(videoStart)),
      durationMs,
      endedBy: meta.endedBy,
      events: events.sort((a, b) => a.at - b.at),
      snapshots,
      truncated: this.truncated,
    };
  }
}

function typeOf(event: DeviceActionEvent): string {
  const { method, detail } = event;
  if (method !== 'swipe') return method;
  const still = detail.fromX === detail.toX && detail.fromY === detail.toY;
  return still && typeof detail.durationMs === 'number' && detail.durationMs >= LONG_PRESS_MS ? 'long_press' : 'swipe';
}

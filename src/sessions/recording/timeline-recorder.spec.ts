import type { DeviceActionEvent } from '../events/device-action.event';
import { MAX_SNAPSHOT_ELEMENTS, MAX_TIMELINE_EVENTS, TimelineRecorder } from './timeline-recorder';

const action = (method: string, detail: Record<string, string | number | boolean>, requestedAt: number): DeviceActionEvent => ({
  sessionId: 's',
  method,
  detail,
  outcome: 'ok',
  by: 'qa@example.com',
  via: 'cookie',
  requestedAt,
});
const element = (label: string) => ({ role: 'button', label, identifier: '', frame: { x: 0, y: 0, width: 1, height: 1 }, enabled: true });
const meta = { sessionId: 's', buildId: null, endedBy: 'stopped' };

describe('TimelineRecorder', () => {
  it('places actions on the video time line, clamped to it, in order', () => {
    const timeline = new TimelineRecorder();
    timeline.action(action('tap', { x: 0.5, y: 0.5 }, 10_900)); // before the first frame
    timeline.action(action('swipe', { fromX: 0.1, fromY: 0.9, toX: 0.1, toY: 0.1, durationMs: 300 }, 13_500));
    timeline.action(action('type_text', { textLength: 8 }, 12_000));
    timeline.action(action('press_button', { button: 'home' }, 99_000)); // after the end
    const built = timeline.build(meta, 11_000, 4000);
    expect(built.events.map((e) => [e.at, e.type])).toEqual([
      [0, 'tap'],
      [1000, 'type_text'],
      [2500, 'swipe'],
      [4000, 'press_button'],
    ]);
    expect(built.startedAt).toBe(new Date(11_000).toISOString());
  });

  it('calls a swipe that stays in place for 500 ms or more a long press', () => {
    const timeline = new TimelineRecorder();
    timeline.action(action('swipe', { fromX: 0.3, fromY: 0.3, toX: 0.3, toY: 0.3, durationMs: 800 }, 1));
    timeline.action(action('swipe', { fromX: 0.3, fromY: 0.3, toX: 0.3, toY: 0.3, durationMs: 100 }, 2));
    timeline.action(action('swipe', { fromX: 0.3, fromY: 0.3, toX: 0.4, toY: 0.3, durationMs: 800 }, 3));
    expect(timeline.build(meta, 0, 10).events.map((e) => e.type)).toEqual(['long_press', 'swipe', 'swipe']);
  });

  it('keeps a snapshot only when the tree changed, and bounds trees and events', () => {
    const timeline = new TimelineRecorder();
    timeline.snapshot(1000, [element('A')]);
    timeline.snapshot(2000, [element('A')]);
    timeline.snapshot(3000, [element('B')]);
    let built = timeline.build(meta, 1000, 5000);
    expect(built.snapshots.map((s) => [s.at, s.tree.elements[0].label])).toEqual([
      [0, 'A'],
      [2000, 'B'],
    ]);
    expect(built.truncated).toBe(false);
    timeline.snapshot(4000, Array.from({ length: MAX_SNAPSHOT_ELEMENTS + 5 }, (_, i) => element(String(i))));
    for (let i = 0; i <= MAX_TIMELINE_EVENTS; i++) timeline.action(action('tap', { x: 0, y: 0 }, 1000));
    built = timeline.build(meta, 1000, 5000);
    expect(built.snapshots[2].tree.elements).toHaveLength(MAX_SNAPSHOT_ELEMENTS);
    expect(built.events).toHaveLength(MAX_TIMELINE_EVENTS);
    expect(built.truncated).toBe(true);
  });
});

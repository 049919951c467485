import { describe, expect, it } from 'vitest';
import { clockText, describeEvent, eventAt, indexAt, snapshotElements } from './timeline';

describe('clockText', () => {
  it('reads seconds as m:ss, with hours past an hour', () => {
    expect(clockText(0)).toBe('0:00');
    expect(clockText(75.9)).toBe('1:15');
    expect(clockText(3725)).toBe('1:02:05');
    expect(clockText(-3)).toBe('0:00');
  });
});

describe('describeEvent', () => {
  it('reads the device methods as sentences', () => {
    expect(describeEvent({ type: 'tap', detail: { x: 0.25, y: 0.75 } })).toBe('Tapped at 25 %, 75 %');
    expect(describeEvent({ type: 'swipe', detail: { fromX: 0.5, fromY: 0.8, toX: 0.5, toY: 0.2, durationMs: 300 } })).toBe(
      'Swiped from 50 %, 80 % to 50 %, 20 %',
    );
    expect(describeEvent({ type: 'swipe', detail: { fromX: 0.1, fromY: 0.2, toX: 0.1, toY: 0.2, durationMs: 800 } })).toBe('Long press at 10 %, 20 %');
    expect(describeEvent({ type: 'type_text', detail: { textLength: 14 } })).toBe('Typed 14 characters');
    expect(describeEvent({ type: 'press_button', detail: { button: 'volume_up' } })).toBe('Pressed volume up');
    expect(describeEvent({ type: 'install_build', detail: { buildId: 7 } })).toBe('Installed build 7');
    expect(describeEvent({ type: 'type_text', detail: { textLength: 1 } })).toBe('Typed 1 character');
    expect(describeEvent({ type: 'long_press', detail: { fromX: 0.1, fromY: 0.2, toX: 0.1, toY: 0.2, durationMs: 800 } })).toBe('Long press at 10 %, 20 %');
    expect(describeEvent({ type: 'launch_app', detail: { bundleId: 'com.example.app' } })).toBe('Launched com.example.app');
    expect(describeEvent({ type: 'tap', detail: { x: 0.5, y: 0.5 }, outcome: 'error:not_booted' })).toBe('Tapped at 50 %, 50 % (failed: error:not_booted)');
    expect(describeEvent({ type: 'tap', detail: { x: 0.5, y: 0.5 }, outcome: 'ok' })).toBe('Tapped at 50 %, 50 %');
  });

  it('shows anything else by name with a short detail, never markup', () => {
    expect(describeEvent({ type: 'app_launched', detail: 'com.example' })).toBe('app launched: com.example');
    expect(describeEvent({ type: 'note', detail: null })).toBe('note');
    expect(describeEvent({ type: 'x', detail: { a: 'b'.repeat(200) } })).toHaveLength(3 + 80);
  });
});

describe('indexAt', () => {
  const items = [{ at: 0 }, { at: 1000 }, { at: 1000 }, { at: 5000 }];
  it('finds the last item at or before the time', () => {
    expect(indexAt(items, -1)).toBe(-1);
    expect(indexAt(items, 0)).toBe(0);
    expect(indexAt(items, 999)).toBe(0);
    expect(indexAt(items, 1000)).toBe(2);
    expect(indexAt(items, 4999)).toBe(2);
    expect(indexAt(items, 1e9)).toBe(3);
    expect(indexAt([], 10)).toBe(-1);
  });
});

describe('eventAt', () => {
  const events = [{ at: 0 }, { at: 4734 }, { at: 6000 }];
  it('counts an event the playhead stopped a frame short of as reached', () => {
    expect(eventAt(events, 4733.333)).toBe(1);
    expect(eventAt(events, 4700)).toBe(1);
    expect(eventAt(events, 4683)).toBe(0);
    expect(eventAt(events, 5999)).toBe(2);
  });
});

describe('snapshotElements', () => {
  const element = { role: 'button', label: 'OK', identifier: '', enabled: true, frame: { x: 0, y: 0, width: 1, height: 1 } };
  it('takes the ui-tree answer or its list, and drops what is no element', () => {
    expect(snapshotElements({ elements: [element, 3, null] })).toEqual([element]);
    expect(snapshotElements([element])).toEqual([element]);
    expect(snapshotElements('nope')).toEqual([]);
    expect(snapshotElements(null)).toEqual([]);
  });
});

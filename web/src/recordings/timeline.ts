import type { Schemas } from '../api/client';

type UiElement = Schemas['UiElement'];

/** 75 → "1:15". */
export function clockText(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const h = Math.floor(s / 3600);
  const mm = String(Math.floor((s % 3600) / 60));
  const ss = String(s % 60).padStart(2, '0');
  return h ? `${h}:${mm.padStart(2, '0')}:${ss}` : `${mm}:${ss}`;
}

const percent = (value: unknown) => (typeof value === 'number' ? `${Math.round(value * 100)} %` : '?');
const text = (value: unknown) => (typeof value === 'string' ? value : '');

/**
 * What an event of the timeline did, in a few words: the relay writes the device method and its
 * parameters (tap x/y, swipe from/to, type_text's length, press_button's button, launch_app's
 * bundle id, install_build's build), so those read as sentences, anything else as its name with a
 * short detail; a failed action says how it failed.
 */
/** The fields of a TimelineEvent this reads (docs/recordings.md "Timeline"). */
interface EventFields {
  type: string;
  detail?: unknown;
  outcome?: string;
}

export function describeEvent(event: EventFields): string {
  const failed = event.outcome && event.outcome !== 'ok' ? ` (failed: ${event.outcome})` : '';
  return what(event) + failed;
}

function what(event: EventFields): string {
  const d = (event.detail && typeof event.detail === 'object' ? event.detail : {}) as Record<string, unknown>;
  switch (event.type) {
    case 'tap':
      return `Tapped at ${percent(d.x)}, ${percent(d.y)}`;
    case 'long_press':
      return `Long press at ${percent(d.fromX)}, ${percent(d.fromY)}`;
    case 'swipe':
      return d.fromX === d.toX && d.fromY === d.toY
        ? `Long press at ${percent(d.fromX)}, ${percent(d.fromY)}`
        : `Swiped from ${percent(d.fromX)}, ${percent(d.fromY)} to ${percent(d.toX)}, ${percent(d.toY)}`;
    case 'type_text':
      // The relay keeps the length, never the text (it may be a password).
      return typeof d.textLength === 'number' ? `Typed ${d.textLength} ${d.textLength === 1 ? 'character' : 'characters'}` : 'Typed text';
    case 'press_button':
      return `Pressed ${text(d.button).replace('_', ' ')}`;
    case 'launch_app':
      return `Launched ${text(d.bundleId) || 'an app'}`;
    case 'install_build':
      return d.buildId !== undefined ? `Installed build ${String(d.buildId)}` : 'Installed a build';
    default: {
      const detail = typeof event.detail === 'string' ? event.detail : event.detail == null ? '' : JSON.stringify(event.detail);
      return `${event.type.replace(/_/g, ' ')}${detail ? `: ${clip(detail)}` : ''}`;
    }
  }
}

function clip(value: string, max = 80): string {
  return value.length > max ? `${value.slice(0, max - 1)}…` : value;
}

/**
 * The event the playhead is on: the last at or before `ms`, counting one reached up to 50 ms ahead.
 * A seek to an event's time lands on a frame, which the browser may report a frame early (33 ms at
 * 30 fps); without the slack, a click on an event would mark the one before it.
 */
export function eventAt(events: readonly { at: number }[], ms: number): number {
  return indexAt(events, ms + 50);
}

/** The last item at or before `ms` (items sorted by `at`), or -1 before the first. */
export function indexAt(items: readonly { at: number }[], ms: number): number {
  let low = 0;
  let high = items.length - 1;
  let found = -1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (items[middle].at <= ms) {
      found = middle;
      low = middle + 1;
    } else high = middle - 1;
  }
  return found;
}

/** A snapshot's elements, whether the relay stored the ui-tree answer (`{ elements }`) or its list. */
export function snapshotElements(tree: unknown): UiElement[] {
  const list = Array.isArray(tree) ? tree : tree && typeof tree === 'object' ? (tree as { elements?: unknown }).elements : null;
  return Array.isArray(list) ? (list.filter((e) => e && typeof e === 'object' && 'frame' in e) as UiElement[]) : [];
}

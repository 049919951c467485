import { useMutation } from '@tanstack/react-query';
import { useRef, type KeyboardEvent, type PointerEvent } from 'react';
import { deviceRequest } from './device-session';

/** Pointer travel (fraction of the picture) under which a press is a tap, not a swipe. */
const TAP_SLOP = 0.02;
/** A press held this long without moving is a long press (a swipe that stays in place, as Android reads it). */
const LONG_PRESS_MS = 500;

export type Gesture =
  | { method: 'tap'; x: number; y: number }
  | { method: 'swipe'; fromX: number; fromY: number; toX: number; toY: number; durationMs: number }
  | { method: 'type_text'; text: string }
  | { method: 'press_button'; button: 'home' | 'back' | 'enter' | 'volume_up' | 'volume_down' };

/** What the picture needs to take input: pointer and key handlers, plus the last outcome. */
export interface ScreenGestures {
  onPointerDown: (event: PointerEvent<HTMLElement>) => void;
  onPointerUp: (event: PointerEvent<HTMLElement>) => void;
  onKeyDown: (event: KeyboardEvent<HTMLElement>) => void;
  send: (gesture: Gesture) => void;
  pending: boolean;
  error: Error | null;
  last: string | null;
}

const describe = (g: Gesture): string => {
  switch (g.method) {
    case 'tap':
      return `Tapped at ${Math.round(g.x * 100)} %, ${Math.round(g.y * 100)} %`;
    case 'swipe':
      return g.fromX === g.toX && g.fromY === g.toY ? `Long press (${g.durationMs} ms)` : `Swiped (${g.durationMs} ms)`;
    case 'type_text':
      return `Typed ${g.text.length} ${g.text.length === 1 ? 'character' : 'characters'}`;
    case 'press_button':
      return `Pressed ${g.button.replace('_', ' ')}`;
  }
};

/**
 * Control on the picture (docs/agents.md "Device methods", over the device-session socket): a click
 * taps where it lands, a drag swipes from where it started to where it ended in the time it took, a
 * press held still is a long press, and keys typed while the picture has focus are typed on the
 * device (Enter presses enter). Coordinates are fractions of the picture, as the agents take them.
 */
export function useScreenGestures(sessionId: string): ScreenGestures {
  const start = useRef<{ x: number; y: number; at: number } | null>(null);
  const mutation = useMutation({
    mutationFn: async (gesture: Gesture) => {
      const { method, ...params } = gesture;
      await deviceRequest(sessionId, method, params, 60_000);
      return describe(gesture);
    },
  });
  const point = (event: PointerEvent<HTMLElement>) => {
    const box = event.currentTarget.getBoundingClientRect();
    const clamp = (v: number) => Math.min(1, Math.max(0, v));
    return { x: clamp((event.clientX - box.left) / box.width), y: clamp((event.clientY - box.top) / box.height) };
  };
  // The UI tree's element boxes over the picture keep their own clicks (they select the element).
  const onOverlayButton = (event: PointerEvent<HTMLElement> | KeyboardEvent<HTMLElement>) => (event.target as HTMLElement).closest('button') !== null;
  return {
    onPointerDown: (event) => {
      if (event.button !== 0 || onOverlayButton(event)) return;
      start.current = { ...point(event), at: performance.now() };
    },
    onPointerUp: (event) => {
      const from = start.current;
      start.current = null;
      if (!from || onOverlayButton(event)) return;
      const to = point(event);
      const durationMs = Math.min(10_000, Math.round(performance.now() - from.at));
      const moved = Math.hypot(to.x - from.x, to.y - from.y) > TAP_SLOP;
      if (moved) mutation.mutate({ method: 'swipe', fromX: from.x, fromY: from.y, toX: to.x, toY: to.y, durationMs: Math.max(50, durationMs) });
      else if (durationMs >= LONG_PRESS_MS) mutation.mutate({ method: 'swipe', fromX: from.x, fromY: from.y, toX: from.x, toY: from.y, durationMs });
      else mutation.mutate({ method: 'tap', x: from.x, y: from.y });
    },
    onKeyDown: (event) => {
      if (onOverlayButton(event) || event.ctrlKey || event.metaKey || event.altKey) return;
      if (event.key === 'Enter') mutation.mutate({ method: 'press_button', button: 'enter' });
      else if (event.key.length === 1) mutation.mutate({ method: 'type_text', text: event.key });
      else return;
      event.preventDefault();
    },
    send: (gesture) => mutation.mutate(gesture),
    pending: mutation.isPending,
    error: mutation.error,
    last: mutation.data ?? null,
  };
}

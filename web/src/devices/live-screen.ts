import { useEffect, useState } from 'react';
import { toApiError } from '../api/client';

/** About once a second, as the issue asks; the next capture starts only after the last one ended. */
const REFRESH_MS = 1000;

export interface LiveScreen {
  /** An object URL of the newest capture (CSP img-src allows blob:). */
  url: string | null;
  /** The same capture's bytes (a blob: URL cannot be fetched back under the CSP's connect-src). */
  blob: Blob | null;
  error: string | null;
  /** Captures shown so far (also tells a reader that it refreshes). */
  frames: number;
  paused: boolean;
}

/**
 * The device's screen through GET /sessions/:id/screenshot, refreshed while the page is visible
 * and paused while the tab is hidden (no captures nobody sees: each one costs the agent a
 * screenshot). `refreshMs` is longer while the live video shows the picture (a capture is kept for
 * "Attach this screen"). `enabled` false (a wall tile out of view, or showing live video) takes none.
 */
export function useLiveScreen(sessionId: string, refreshMs = REFRESH_MS, enabled = true): LiveScreen {
  const [state, setState] = useState<LiveScreen>({ url: null, blob: null, error: null, frames: 0, paused: document.hidden });
  useEffect(() => {
    if (!enabled) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let current: string | null = null;
    let running = false;
    const capture = async () => {
      timer = undefined;
      if (stopped || running || document.hidden) return;
      running = true;
      try {
        const res = await fetch(`/api/v1/sessions/${encodeURIComponent(sessionId)}/screenshot?format=jpeg`, { credentials: 'same-origin' });
        if (!res.ok) throw toApiError(res.status, await res.json().catch(() => null));
        const blob = await res.blob();
        const url = URL.createObjectURL(blob);
        if (stopped) {
          URL.revokeObjectURL(url);
          return;
        }
        if (current) URL.revokeObjectURL(current);
        current = url;
        setState((s) => ({ url, blob, error: null, frames: s.frames + 1, paused: false }));
      } catch (err) {
        if (!stopped) setState((s) => ({ ...s, error: (err as Error).message }));
      } finally {
        running = false;
      }
      if (!stopped && !document.hidden) timer = setTimeout(capture, refreshMs);
    };
    const onVisibility = () => {
      setState((s) => ({ ...s, paused: document.hidden }));
      if (!document.hidden && timer === undefined) void capture();
    };
    document.addEventListener('visibilitychange', onVisibility);
    void capture();
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      document.removeEventListener('visibilitychange', onVisibility);
      if (current) {
        URL.revokeObjectURL(current);
        // The revoked address would show a broken picture; the next capture brings one back.
        setState((s) => (s.url === current ? { ...s, url: null } : s));
      }
    };
  }, [sessionId, refreshMs, enabled]);
  return state;
}

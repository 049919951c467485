import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { authKeys, sessionEnded } from '../auth/queries';
import { buildKeys } from '../builds/queries';

/**
 * The relay's server-sent event stream (GET /api/v1/events, cookie-authenticated, see
 * docs/dashboard.md) says what changed elsewhere; each event invalidates the queries it
 * concerns, so open pages refetch what they show. EventSource reconnects by itself; after a
 * reconnect everything is refetched, since events sent while disconnected are lost.
 */
export function useLiveEvents() {
  const client = useQueryClient();
  useEffect(() => {
    if (typeof EventSource === 'undefined') return;
    const source = new EventSource('/api/v1/events');
    let opened = false;
    source.onopen = () => {
      if (opened) void client.invalidateQueries();
      opened = true;
    };
    const handlers = LIVE_EVENT_TYPES.map((type) => {
      const handler = (event: MessageEvent) => applyLiveEvent(client, type, parse(event.data));
      source.addEventListener(type, handler);
      return handler;
    });
    return () => {
      LIVE_EVENT_TYPES.forEach((type, i) => source.removeEventListener(type, handlers[i]));
      source.close();
    };
  }, [client]);
}

export const LIVE_EVENT_TYPES = [
  'build.created',
  'build.status_changed',
  'build.updated',
  'builds.deleted',
  'comment.created',
  'comment.deleted',
  'role.changed',
  'team.changed',
  'session.ended',
] as const;

type Payload = Record<string, unknown>;

function parse(data: unknown): Payload {
  if (typeof data !== 'string') return {};
  try {
    const value = JSON.parse(data);
    return value && typeof value === 'object' ? value : {};
  } catch {
    return {};
  }
}

export function applyLiveEvent(client: QueryClient, type: string, payload: Payload) {
  if (type === 'session.ended') {
    // Signed out or expired: the gate shows the sign-in page; a replaced session carries on.
    void sessionEnded(client);
    return;
  }
  for (const key of keysFor(type, payload)) void refetchAfterChange(client, key);
}

/**
 * Makes the queries under `queryKey` read again. A fetch already in flight may have read before
 * the change, and invalidating alone would not replace it: for a query with no data yet, React
 * Query joins the running fetch instead of starting another (a comment posted while the build
 * page's first comments request was out never appeared). So running fetches are cancelled first.
 */
async function refetchAfterChange(client: QueryClient, queryKey: readonly unknown[]) {
  await client.cancelQueries({ queryKey, fetchStatus: 'fetching' });
  await client.invalidateQueries({ queryKey });
}

const id = (value: unknown): number | null => (typeof value === 'number' && Number.isInteger(value) ? value : null);

/** Which cached resources an event makes stale. */
export function keysFor(type: string, payload: Payload): (readonly unknown[])[] {
  switch (type) {
    case 'build.created':
    case 'build.status_changed':
    case 'build.updated': {
      const buildId = id(payload.build_id);
      if (buildId === null) return [buildKeys.all, ['apps'], ['release-gate']];
      // ['release-gate']: a review, a policy or an upload elsewhere may have changed this build's gate (or the inbox's states).
      const keys = [buildKeys.lists, buildKeys.detail(buildId), buildKeys.history(buildId), ['apps'], ['release-gate']];
      // A build turned Done (or not) may be the last Done one another build's contents name.
      return type === 'build.status_changed' ? [...keys, buildKeys.allContents] : keys;
    }
    case 'builds.deleted':
      return [buildKeys.all, ['apps']];
    case 'comment.created':
    case 'comment.deleted': {
      const buildId = id(payload.build_id);
      return [buildId === null ? ['comments'] : buildKeys.comments(buildId)];
    }
    case 'role.changed':
      return [authKeys.me];
    case 'team.changed':
      return [['team']];
    default:
      return [];
  }
}

import { useQuery } from '@tanstack/react-query';
import { api, call } from '../api/client';

export const relayKeys = { host: ['relay', 'host'] as const, logs: ['relay', 'logs'] as const };

export function useRelayHost() {
  return useQuery({ queryKey: relayKeys.host, queryFn: () => call(api.GET('/api/v1/relay/host')), staleTime: Infinity });
}

const LOOPBACK = ['localhost', '127.0.0.1', '[::1]'];

/**
 * Where a teammate or a phone reaches this relay: its public URL, else its LAN address when this
 * page was opened on the relay host itself, else this page's origin.
 */
export function useReachableOrigin(): string {
  const h = useRelayHost().data;
  if (h?.publicBaseUrl) return h.publicBaseUrl.replace(/\/$/, '');
  if (h?.lanHost && LOOPBACK.includes(window.location.hostname)) return `${window.location.protocol}//${h.lanHost}:${h.port}`;
  return window.location.origin;
}

/** The newest lines of the relay's log, refreshed while shown; the relay answers only its own host (403 elsewhere). */
export function useRelayLogs(enabled: boolean) {
  return useQuery({
    queryKey: relayKeys.logs,
    queryFn: () => call(api.GET('/api/v1/logs', { params: { query: { lines: 200 } } })),
    enabled,
    refetchInterval: (query) => (query.state.error ? false : 2000),
    refetchIntervalInBackground: false,
    staleTime: 0,
  });
}

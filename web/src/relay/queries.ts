import { useQuery } from '@tanstack/react-query';
import { api, call } from '../api/client';

export const relayKeys = { host: ['relay', 'host'] as const, warnings: ['relay', 'warnings'] as const, logs: ['relay', 'logs'] as const };

export function useRelayHost() {
  return useQuery({ queryKey: relayKeys.host, queryFn: () => call(api.GET('/api/v1/relay/host')), staleTime: Infinity });
}

/** What an Admin should fix in the relay's configured addresses (a relay.url nobody else can open); fixed until a restart. */
export function useRelayWarnings() {
  return useQuery({ queryKey: relayKeys.warnings, queryFn: () => call(api.GET('/api/v1/relay/warnings')), staleTime: Infinity });
}

/** Where a link built on this relay's address leads, and whether a phone or a teammate can open it. */
export interface ReachableAddress {
  origin: string;
  /** `public`: the relay's public URL (tunnel, `relay.url`); `lan`: its LAN address; `page`: this page's origin. */
  source: 'public' | 'lan' | 'page';
  /** False for loopback (localhost, 127.x, ::1): only this computer opens such a link. */
  othersCanOpen: boolean;
}

export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  return host === 'localhost' || host.endsWith('.localhost') || /^127\./.test(host) || host === '::1';
}

/**
 * Where a teammate or a phone reaches this relay, the way the relay builds its own links: its
 * public URL, else its LAN address when this page was opened on the relay host itself, else this
 * page's origin. Used by every link the dashboard shows for another device (invitations, resets,
 * downloads, share links), with ReachableAddressNote saying when it is not a public address.
 */
export function useReachableAddress(): ReachableAddress {
  const h = useRelayHost().data;
  if (h?.publicBaseUrl) return { origin: h.publicBaseUrl.replace(/\/$/, ''), source: 'public', othersCanOpen: true };
  if (h?.lanHost && isLoopbackHost(window.location.hostname)) {
    return { origin: `${window.location.protocol}//${h.lanHost}:${h.port}`, source: 'lan', othersCanOpen: true };
  }
  return { origin: window.location.origin, source: 'page', othersCanOpen: !isLoopbackHost(window.location.hostname) };
}

export function useReachableOrigin(): string {
  return useReachableAddress().origin;
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

import type { IncomingMessage } from 'node:http';
import { hostNamesThisMachine } from './relay-host';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The one Origin rule, for cookie-authenticated (and sign-in) requests that change state and for
 * every WebSocket upgrade a cookie authenticates (a socket is a channel for changes: cross-site
 * WebSocket hijacking).
 *
 * SameSite=Lax does not cover another service on the same host (ports are same-site), and browsers
 * send no Fetch-Metadata to plain-HTTP LAN addresses, so the Origin header carries the defence.
 * Allowed: the origin of `knownUrls` (`relay.url`, the tunnel URL), or an Origin whose host:port is
 * the request's own `Host` **when that Host names this machine** (a page whose name was rebound to
 * 127.0.0.1 is "same-origin" with itself, so its own Host proves nothing). `Origin: null` is
 * refused. Requests without Origin and Sec-Fetch-Site (curl, CI, agents) pass.
 */
export function isCrossSiteRequest(req: IncomingMessage, knownUrls: (string | null)[]): boolean {
  const upgrade = req.headers.upgrade !== undefined;
  if (!upgrade && SAFE_METHODS.has(req.method ?? 'GET')) return false;
  const origin = req.headers.origin;
  if (origin === undefined) return req.headers['sec-fetch-site'] === 'cross-site';
  let originUrl: URL;
  try {
    originUrl = new URL(origin);
  } catch {
    return true; // `null`, or anything that is not an origin
  }
  if (knownUrls.some((url) => !!url && originOf(url) === originUrl.origin)) return false;
  const host = (req.headers.host ?? '').toLowerCase();
  return !(originUrl.host === host && hostNamesThisMachine(host, knownUrls));
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '';
  }
}

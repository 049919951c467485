import type { Request } from 'express';
import type { IncomingMessage } from 'node:http';
import { hostname } from 'node:os';
import type { TrustFn } from '../../platform/express/trust-proxy';
import { isLoopback, normalizeIp, ownInterfaceAddresses } from './ip-address';

/**
 * Headers a proxy or tunnel adds. Every tunnel in scope (cloudflared, ngrok, Tailscale Serve)
 * connects from loopback, so a loopback peer alone proves nothing: any of these makes the request
 * remote, except X-Forwarded-* coming through a trusted proxy (see isRelayHostRequest).
 */
const FORWARDING_HEADERS = [
  'forwarded',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  'x-real-ip',
  'cf-connecting-ip',
  'cf-ray',
  'true-client-ip',
  'tailscale-funnel-request',
];

/** The forwarding headers Express's `trust proxy` understands; a trusted proxy may send these. */
const TRUSTED_PROXY_HEADERS = ['x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto'];

/** Whether a proxy or tunnel passed this request on (any forwarding header). */
export function isForwarded(req: IncomingMessage): boolean {
  return forwardingHeaders(req).length > 0;
}

function forwardingHeaders(req: IncomingMessage): string[] {
  return Object.keys(req.headers).filter(
    (name) => FORWARDING_HEADERS.includes(name) || name.startsWith('tailscale-user-'),
  );
}

export function isOwnAddress(address: string | null): boolean {
  return !!address && (isLoopback(address) || ownInterfaceAddresses().has(address));
}

/** The comma-separated values of a header that may repeat (`X-Forwarded-For`, `X-Forwarded-Host`). */
function listHeader(req: IncomingMessage, name: string): string[] {
  const header = req.headers[name];
  const raw = Array.isArray(header) ? header.join(',') : (header ?? '');
  return raw
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
}

/** The host name of a `Host`-style value (`name`, `name:port`, `[v6]:port`), lower-case; null when unparsable. */
function hostNameOf(hostHeader: string): string | null {
  try {
    const name = new URL(`http://${hostHeader}`).hostname.toLowerCase();
    return name.replace(/^\[|\]$/g, '') || null;
  } catch {
    return null;
  }
}

/**
 * Does this `Host` name this machine (DNS-rebinding defence)? True for `localhost`, the machine's
 * own host name, a loopback or own-interface address, or the host of one of `knownUrls`
 * (`relay.url`, the tunnel URL), with any port. A page on another domain whose name was rebound
 * to 127.0.0.1 still sends its own name in `Host`, so it fails here.
 */
export function hostNamesThisMachine(hostHeader: string, knownUrls: (string | null)[]): boolean {
  const name = hostNameOf(hostHeader);
  if (!name) return false;
  if (name === 'localhost' || name === hostname().toLowerCase()) return true;
  if (isOwnAddress(normalizeIp(name))) return true;
  return knownUrls.some((url) => !!url && urlHostName(url) === name);
}

function urlHostName(url: string): string | null {
  try {
    return hostNameOf(new URL(url).host);
  } catch {
    return null;
  }
}

/**
 * Every host name the request claims: its `Host`, and any `X-Forwarded-Host` a local proxy passed
 * on. No `Host` at all is not a browser (they always send one): HTTP/1.0 tools keep working.
 */
function claimedHostsNameThisMachine(req: IncomingMessage, knownUrls: (string | null)[]): boolean {
  const claimed = [...(req.headers.host ? [req.headers.host] : []), ...listHeader(req, 'x-forwarded-host')];
  return claimed.every((host) => hostNamesThisMachine(host, knownUrls));
}

/**
 * "From the relay host" (spec §5.8), for `/auth/init`, `canInitialize` and `/logs`. All of:
 * - the TCP peer is loopback or one of this machine's addresses;
 * - no forwarding header, or (with SVC_TRUST_PROXY and the peer a trusted proxy) nothing but
 *   X-Forwarded-* headers and **every** X-Forwarded-For hop is this machine too. Checking every
 *   entry (not Express's `req.ip`, which with `trust proxy = true` is the left-most, client-written
 *   one) and the peer itself means neither a client behind the proxy nor one connecting directly
 *   passes by writing `X-Forwarded-For: 127.0.0.1`. Headers Express does not interpret
 *   (Forwarded, X-Real-IP, CF-Connecting-IP, …) always mean remote;
 * - the `Host` (and any X-Forwarded-Host) names this machine or `knownUrls` (DNS rebinding).
 * `trust` is Express's compiled `trust proxy`; without one, any forwarding header means remote.
 */
export function isRelayHostRequest(req: IncomingMessage, knownUrls: (string | null)[], trust?: TrustFn): boolean {
  const peer = normalizeIp(req.socket.remoteAddress);
  if (!isOwnAddress(peer)) return false;
  if (!claimedHostsNameThisMachine(req, knownUrls)) return false;
  const forwarded = forwardingHeaders(req);
  if (!forwarded.length) return true;
  if (!trust || !trust(peer!, 0)) return false;
  if (!forwarded.every((name) => TRUSTED_PROXY_HEADERS.includes(name))) return false;
  const chain = listHeader(req, 'x-forwarded-for');
  return chain.length > 0 && chain.every((address) => isOwnAddress(normalizeIp(address)));
}

/** The client address for rate limits and logs: the socket peer, or the forwarded one via trusted proxies. */
export function clientAddress(req: Request): string {
  // Without X-Forwarded-For, req.ip is the socket peer whatever `trust proxy` says: skip its parse (every request's log line).
  const peer = req.headers['x-forwarded-for'] === undefined ? req.socket.remoteAddress : req.ip;
  return normalizeIp(peer) ?? normalizeIp(req.socket.remoteAddress) ?? 'unknown';
}

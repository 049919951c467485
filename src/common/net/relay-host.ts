import type { Request } from 'express';
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

function forwardingHeaders(req: Request): string[] {
  return Object.keys(req.headers).filter(
    (name) => FORWARDING_HEADERS.includes(name) || name.startsWith('tailscale-user-'),
  );
}

function isOwnAddress(address: string | null): boolean {
  return !!address && (isLoopback(address) || ownInterfaceAddresses().has(address));
}

type TrustFn = (addr: string, hop: number) => boolean;

/**
 * "From the relay host" (spec §5.8): the TCP peer is loopback or one of this machine's addresses
 * and no forwarding header is present.
 *
 * With SVC_TRUST_PROXY set and the peer a trusted proxy, the forwarded client address is judged
 * instead: the request is local only when it carries nothing but X-Forwarded-* headers and every
 * address in X-Forwarded-For is this machine's own. Checking every entry (not Express's
 * `req.ip`, which with `trust proxy = true` is the left-most, client-written entry) means a remote
 * client cannot pass by sending `X-Forwarded-For: 127.0.0.1`: its proxy appends the real address.
 * Headers Express does not interpret (Forwarded, X-Real-IP, CF-Connecting-IP, …) always mean remote.
 */
export function isRelayHostRequest(req: Request): boolean {
  const peer = normalizeIp(req.socket.remoteAddress);
  const forwarded = forwardingHeaders(req);
  if (!forwarded.length) return isOwnAddress(peer);
  const trust = req.app.get('trust proxy fn') as TrustFn | undefined;
  if (!peer || !trust || !trust(peer, 0)) return false;
  if (!forwarded.every((name) => TRUSTED_PROXY_HEADERS.includes(name))) return false;
  const chain = forwardedForChain(req);
  return chain.length > 0 && chain.every((address) => isOwnAddress(normalizeIp(address)));
}

function forwardedForChain(req: Request): string[] {
  const header = req.headers['x-forwarded-for'];
  const raw = Array.isArray(header) ? header.join(',') : (header ?? '');
  return raw
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
}

/** The client address for rate limits and logs: the socket peer, or the forwarded one via trusted proxies. */
export function clientAddress(req: Request): string {
  return normalizeIp(req.ip) ?? normalizeIp(req.socket.remoteAddress) ?? 'unknown';
}

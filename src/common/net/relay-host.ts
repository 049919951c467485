import type { Request } from 'express';
import { isLoopback, normalizeIp, ownInterfaceAddresses } from './ip-address';

/**
 * Headers a proxy or tunnel adds. Every tunnel in scope (cloudflared, ngrok, Tailscale Serve)
 * connects from loopback, so a loopback peer alone proves nothing: any of these makes the request remote.
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

function hasForwardingHeader(req: Request): boolean {
  return Object.keys(req.headers).some(
    (name) => FORWARDING_HEADERS.includes(name) || name.startsWith('tailscale-user-'),
  );
}

function isOwnAddress(address: string | null): boolean {
  return !!address && (isLoopback(address) || ownInterfaceAddresses().has(address));
}

/**
 * "From the relay host" (spec §5.8): the TCP peer is loopback or one of this machine's addresses
 * and no forwarding header is present. With SVC_TRUST_PROXY set, a forwarded request is judged by
 * the client address Express derives through the trusted proxies (req.ip), and only when the peer
 * itself is trusted; an untrusted peer with forwarding headers is always remote.
 */
export function isRelayHostRequest(req: Request): boolean {
  const peer = normalizeIp(req.socket.remoteAddress);
  if (!hasForwardingHeader(req)) return isOwnAddress(peer);
  const trust = req.app.get('trust proxy fn') as ((addr: string, i: number) => boolean) | undefined;
  if (!trust || !peer || !trust(req.socket.remoteAddress ?? '', 0)) return false;
  return isOwnAddress(normalizeIp(req.ip));
}

/** The client address for rate limits and logs: the socket peer, or the forwarded one via trusted proxies. */
export function clientAddress(req: Request): string {
  return normalizeIp(req.ip) ?? normalizeIp(req.socket.remoteAddress) ?? 'unknown';
}

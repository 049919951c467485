import { Injectable } from '@nestjs/common';
import { RelayConfig } from '../config/relay-config';
import { TunnelUrl } from '../config/tunnel-url';
import { isLoopback, normalizeIp } from '../common/net/ip-address';

/**
 * The address teammates use to reach this relay (spec §4 Team, inviteUrl rules): the tunnel's
 * public URL when `svc relay --tunnel` started one, else the configured relay URL. An http://
 * tunnel address is skipped when the relay itself serves HTTPS; an address nobody else can open
 * (localhost, loopback, 0.0.0.0) is never offered. Never derived from the request's Host header.
 */
@Injectable()
export class PublicUrlService {
  constructor(
    private readonly config: RelayConfig,
    private readonly tunnelUrl: TunnelUrl,
  ) {}

  get servesHttps(): boolean {
    return !!(this.config.tlsCert && this.config.tlsKey);
  }

  publicBaseUrl(): string | null {
    const tunnel = this.tunnelUrl.current();
    if (tunnel && isUsableTunnelUrl(tunnel, this.servesHttps)) return tunnel;
    const configured = this.config.relayUrl;
    return configured && isReachableByTeammates(configured) ? configured : null;
  }

  /** `<public url><path>?token=…`, or null when there is no usable public URL. */
  link(path: string, token: string): string | null {
    const base = this.publicBaseUrl();
    return base ? `${base}${path}?token=${encodeURIComponent(token)}` : null;
  }
}

/** A tunnel address is used unless it is http:// while the relay serves HTTPS, or nobody else can open it. */
export function isUsableTunnelUrl(url: string, relayServesHttps: boolean): boolean {
  return !(relayServesHttps && url.startsWith('http://')) && isReachableByTeammates(url);
}

export function isReachableByTeammates(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();
  } catch {
    return false;
  }
  if (host === 'localhost' || host.endsWith('.localhost')) return false;
  const ip = normalizeIp(host);
  if (!ip) return true;
  return !isLoopback(ip) && ip !== '0.0.0.0' && ip !== '::';
}

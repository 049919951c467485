import { Injectable } from '@nestjs/common';
import { RelayConfig } from '../config/relay-config';
import { TunnelUrl } from '../config/tunnel-url';
import { isLoopback, normalizeIp } from '../common/net/ip-address';

/**
 * The relay's one canonical origin (docs/deploy.md "One public address"): the address teammates use
 * to reach it (spec §4 Team, inviteUrl rules): the tunnel's public URL when `svc relay --tunnel`
 * started one, else the configured relay URL. An http:// tunnel address is skipped when the relay
 * itself serves HTTPS; an address nobody else can open (localhost, loopback, 0.0.0.0) is never
 * offered, and said so at start-up and on the Relay page. Links, the OIDC redirect URI, SCIM
 * locations and the start-up line all take it from here; without one, a request's own origin is
 * used. Never derived from the request's Host header.
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

  /** The canonical origin, else the origin this request came to (a relay reached on one address). */
  originFor(requestOrigin: string): string {
    return this.publicBaseUrl() ?? requestOrigin;
  }

  /** `<public url><path>?token=…`, or null when there is no usable public URL. */
  link(path: string, token: string): string | null {
    const base = this.publicBaseUrl();
    return base ? `${base}${path}?token=${encodeURIComponent(token)}` : null;
  }

  /**
   * What an operator must know about the configured address: a `relay.url` nobody else can open is
   * left out of everything (logged at start-up, shown on the Relay page) rather than silently.
   */
  warnings(): string[] {
    const configured = this.config.relayUrl;
    if (!configured || isReachableByTeammates(configured)) return [];
    const what = isWildcard(configured) ? 'a wildcard address' : 'loopback';
    return [
      `relay.url ${configured} is ${what}: not used for links, sign-in redirects or the start-up address. ` +
        'Set SVC_RELAY_URL to an address teammates can open, or leave it unset.',
    ];
  }
}

/** A tunnel address is used unless it is http:// while the relay serves HTTPS, or nobody else can open it. */
export function isUsableTunnelUrl(url: string, relayServesHttps: boolean): boolean {
  return !(relayServesHttps && url.startsWith('http://')) && isReachableByTeammates(url);
}

export function isReachableByTeammates(url: string): boolean {
  const host = hostOf(url);
  if (host === null || host === 'localhost' || host.endsWith('.localhost')) return false;
  const ip = normalizeIp(host);
  if (!ip) return true;
  return !isLoopback(ip) && !isWildcard(url);
}

/** 0.0.0.0 and :: are what a server listens on (every interface), not an address anyone opens. */
function isWildcard(url: string): boolean {
  const ip = normalizeIp(hostOf(url));
  return ip === '0.0.0.0' || ip === '::';
}

function hostOf(url: string): string | null {
  try {
    return new URL(url).hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();
  } catch {
    return null;
  }
}

import { Injectable } from '@nestjs/common';
import { isIP } from 'node:net';
import { ownInterfaceAddresses } from '../../common/net/ip-address';
import { classifyAddress, classifyHostname, DestinationPolicy } from './address-classifier';
import { HostnameResolver, ResolvedAddress } from './hostname-resolver';

/** Longest webhook URL accepted (browsers and proxies commonly stop near 2 KB). */
export const MAX_WEBHOOK_URL_LENGTH = 2048;
/** How long a registration waits for DNS before refusing the URL. */
const REGISTRATION_LOOKUP_TIMEOUT_MS = 5000;

/** A destination that may not be called; `reason` is a sentence fit for a 400 or a log line. */
export class DestinationRefused extends Error {
  constructor(
    readonly reason: string,
    /** A failed or slow DNS lookup may succeed later; a refused address will not. */
    readonly transient = false,
  ) {
    super(reason);
  }
}

/** Where one request may go: the URL, and the vetted address the connection is pinned to. */
export interface VettedDestination {
  url: URL;
  /** Host name as written (lower-case, no brackets), for the Host header and TLS SNI. */
  hostname: string;
  /** True when the URL itself is an IP address (no DNS, no SNI). */
  literal: boolean;
  address: string;
  family: 4 | 6;
}

/**
 * The SSRF rule for webhook destinations, in one place for registration and for every delivery
 * attempt: http(s) only; the host's every address (an IP literal, or each A/AAAA record of a
 * name) must pass `classifyAddress`; the caller then connects to the returned address only.
 */
@Injectable()
export class DestinationGuard {
  constructor(private readonly resolver: HostnameResolver) {}

  /** Throws DestinationRefused; `timeoutMs` bounds the DNS lookup. */
  async vet(raw: string, policy: DestinationPolicy, timeoutMs = REGISTRATION_LOOKUP_TIMEOUT_MS): Promise<VettedDestination> {
    const url = parseWebhookUrl(raw);
    const hostname = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
    const own = policy === 'api' ? ownInterfaceAddresses() : new Set<string>();
    const family = isIP(hostname);
    if (family) {
      const refusal = classifyAddress(hostname, policy, own);
      if (refusal) throw new DestinationRefused(`${hostname} is ${refusal}`);
      return { url, hostname, literal: true, address: hostname, family: family === 6 ? 6 : 4 };
    }
    const name = hostname.replace(/\.$/, '');
    const nameRefusal = classifyHostname(name, policy);
    if (nameRefusal) throw new DestinationRefused(`${name} is ${nameRefusal}`);
    const addresses = await this.resolveWithin(name, timeoutMs);
    for (const { address } of addresses) {
      const refusal = classifyAddress(address, policy, own);
      if (refusal) throw new DestinationRefused(`${name} resolves to ${address}, ${refusal}`);
    }
    return { url, hostname, literal: false, address: addresses[0].address, family: addresses[0].family };
  }

  private async resolveWithin(name: string, timeoutMs: number): Promise<ResolvedAddress[]> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new DestinationRefused(`${name} could not be resolved in time`, true)), timeoutMs);
    });
    try {
      const found = await Promise.race([this.resolver.resolve(name), timeout]);
      if (!found.length) throw new DestinationRefused(`${name} has no address`, true);
      return found;
    } catch (err) {
      if (err instanceof DestinationRefused) throw err;
      throw new DestinationRefused(`${name} could not be resolved (${(err as NodeJS.ErrnoException).code ?? 'lookup failed'})`, true);
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * The textual checks: a single absolute http(s) URL with a host, no whitespace or control
 * characters (the URL parser would silently drop tab/CR/LF, so they are refused on the raw text).
 * Numeric spellings (`2130706433`, `0x7f.1`, `127.1`, `①②⑦.0.0.1`) need no special case: the
 * WHATWG parser turns them into dotted quads, which are then classified as addresses.
 */
export function parseWebhookUrl(raw: string): URL {
  if (raw.length > MAX_WEBHOOK_URL_LENGTH) {
    throw new DestinationRefused(`the URL is longer than ${MAX_WEBHOOK_URL_LENGTH} characters`);
  }
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0020\u007f-\u009f]/.test(raw)) {
    throw new DestinationRefused('the URL must not contain spaces or control characters');
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new DestinationRefused('not a valid absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new DestinationRefused(`only http and https URLs are allowed, not ${url.protocol.replace(/:$/, '')}`);
  }
  if (!url.hostname) throw new DestinationRefused('the URL has no host');
  if (url.hostname.length > 253) throw new DestinationRefused('the host name is longer than 253 characters');
  return url;
}

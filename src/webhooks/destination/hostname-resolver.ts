import { Injectable } from '@nestjs/common';
import { lookup } from 'node:dns/promises';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export type LookupFunction = (hostname: string) => Promise<ResolvedAddress[]>;

/** getaddrinfo with AF_UNSPEC: every A and AAAA record, /etc/hosts included, in resolver order. */
const systemLookup: LookupFunction = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((r) => ({
    address: r.address,
    family: r.family === 6 ? 6 : 4,
  }));

/**
 * Turns a webhook host name into every address it has. The one place webhooks ask DNS, so the
 * destination check and the connection use the same answer (the connection goes to an address
 * from this list, never to a second lookup).
 *
 * Test seam: `override()` swaps the lookup (names that resolve to loopback, mixed records, a
 * name that changes its answer between registration and delivery). Nothing in production calls it.
 */
@Injectable()
export class HostnameResolver {
  private lookupFn: LookupFunction = systemLookup;

  resolve(hostname: string): Promise<ResolvedAddress[]> {
    return this.lookupFn(hostname);
  }

  /** Test hook: answer with `fn` instead of the system resolver; `null` restores it. */
  override(fn: LookupFunction | null): void {
    this.lookupFn = fn ?? systemLookup;
  }
}

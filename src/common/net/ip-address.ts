import { networkInterfaces } from 'node:os';
import * as ipaddr from 'ipaddr.js';

/** `::ffff:127.0.0.1` → `127.0.0.1`; returns null for anything that is not an IP address. */
export function normalizeIp(address: string | undefined | null): string | null {
  if (!address) return null;
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (!ipaddr.isValid(bare)) return null;
  return ipaddr.process(bare).toString();
}

export function isLoopback(address: string | null): boolean {
  if (!address) return false;
  try {
    return ipaddr.process(address).range() === 'loopback';
  } catch {
    return false;
  }
}

/** Addresses of this machine's own interfaces (read on each call: interfaces come and go). */
export function ownInterfaceAddresses(): Set<string> {
  const own = new Set<string>();
  for (const list of Object.values(networkInterfaces())) {
    for (const entry of list ?? []) {
      const ip = normalizeIp(entry.address);
      if (ip) own.add(ip);
    }
  }
  return own;
}

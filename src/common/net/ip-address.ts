import { networkInterfaces } from 'node:os';
import * as ipaddr from 'ipaddr.js';

/** Addresses already normalised (the request log asks for every request's client, mostly the same few). */
const normalized = new Map<string, string | null>();
export const MAX_NORMALIZED_ADDRESSES = 1024;
/** Longer than any address with brackets and a zone: parsed (and refused) without being remembered. */
const MAX_ADDRESS_LENGTH = 64;

/** `::ffff:127.0.0.1` → `127.0.0.1`; returns null for anything that is not an IP address. */
export function normalizeIp(address: string | undefined | null): string | null {
  if (!address) return null;
  if (address.length > MAX_ADDRESS_LENGTH) return parsedIp(address);
  let ip = normalized.get(address);
  if (ip === undefined) {
    ip = parsedIp(address);
    // Bounded: a flood of distinct addresses starts it over rather than growing it.
    if (normalized.size >= MAX_NORMALIZED_ADDRESSES) normalized.clear();
    normalized.set(address, ip);
  }
  return ip;
}

function parsedIp(address: string): string | null {
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

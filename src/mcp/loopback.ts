import type { AddressInfo } from 'node:net';

/**
 * The URL by which the relay reaches its own listener: the loopback address of the family it
 * listens on (or the one address it is bound to), its port, and https when it serves TLS itself.
 */
export function loopbackBaseUrl(address: AddressInfo | string | null, tls: boolean): string {
  if (!address || typeof address === 'string') throw new Error('The relay is not listening on a TCP port');
  const host = address.address === '0.0.0.0' ? '127.0.0.1' : address.address === '::' ? '::1' : address.address;
  return `${tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
}

import type { Server, Socket } from 'node:net';
import { normalizeIp } from './ip-address';

export interface ConnectionShareRule {
  /** Open TCP connections one peer address may hold (SVC_MAX_CONNECTIONS_PER_ADDRESS). */
  perAddress: number;
  /**
   * Peers that carry many clients behind one address (a trusted proxy, a tunnel on loopback):
   * only the global cap applies to them, since their clients cannot be told apart here.
   */
  isSharedFrontDoor: (address: string) => boolean;
}

/**
 * `server.maxConnections` alone let one client take every place: 30 idle sockets from one address
 * locked everyone else out until the headers timeout cut them. Here each TCP peer address may hold
 * `perAddress` connections; one more is destroyed as soon as it is accepted, before any byte of it
 * is parsed, while other addresses still get in. Counted on the raw socket (the `connection`
 * event, before TLS), so it sees the TCP peer: behind a proxy that is the proxy, hence the
 * `isSharedFrontDoor` exemption. WebSockets and event streams count while they are open.
 */
export function shareConnectionsByAddress(server: Server, rule: ConnectionShareRule): void {
  const open = new Map<string, number>();
  server.prependListener('connection', (socket: Socket) => {
    const address = normalizeIp(socket.remoteAddress);
    if (!address || rule.isSharedFrontDoor(address)) return;
    const held = open.get(address) ?? 0;
    if (held >= rule.perAddress) {
      socket.destroy();
      return;
    }
    open.set(address, held + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
    });
  });
}

import { Logger } from '@nestjs/common';
import type { WebSocket } from 'ws';
import { CloseCode } from './close-codes';

/** How often open connections are compared against their credential's expiry. */
export const CREDENTIAL_SWEEP_MS = 1000;

/** A long-lived connection opened with a credential: a WebSocket, or the dashboard's event stream. */
export interface CredentialBoundConnection {
  /** Ends the connection because its credential expired (each kind says so in its own protocol). */
  expire(): void;
  /** Calls back once when the connection ends, for whatever reason. */
  onEnd(listener: () => void): void;
}

/**
 * The one rule for connections that outlive the request that opened them: a connection ends when
 * the PAT or session cookie it was opened with expires. WebSockets close with 4001 (agent-protocol
 * §1 for agents; the same code for device-session clients); the event stream sends
 * `session.ended` (docs/dashboard.md). One sweep a second against the relay clock rather than a
 * timer per connection: no setTimeout overflow past 24.8 days, and a test that moves the clock
 * sees the end within a second.
 */
export class CredentialExpiry {
  private readonly watched = new Map<CredentialBoundConnection, number>();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly nowMs: () => number) {}

  watch(connection: CredentialBoundConnection, expiresAt: Date | null): void {
    if (!expiresAt) return;
    this.watched.set(connection, expiresAt.getTime());
    connection.onEnd(() => this.watched.delete(connection));
    if (!this.timer) {
      this.timer = setInterval(() => this.sweep(), CREDENTIAL_SWEEP_MS);
      this.timer.unref();
    }
    this.sweep();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private sweep(): void {
    if (!this.watched.size) return this.stop();
    const now = this.nowMs();
    for (const [connection, expiresAt] of this.watched) {
      if (expiresAt > now) continue;
      this.watched.delete(connection);
      connection.expire();
    }
  }
}

const wsLogger = new Logger('WebSocket');

/** A WebSocket as CredentialExpiry watches it: closed with 4001 when its credential expires. */
export function expiringWebSocket(socket: WebSocket): CredentialBoundConnection {
  return {
    expire: () => {
      if (socket.readyState !== socket.OPEN) return;
      wsLogger.log('Closed a WebSocket (4001): its credential expired');
      socket.close(CloseCode.revoked, 'credential expired');
    },
    onEnd: (listener) => socket.once('close', listener),
  };
}

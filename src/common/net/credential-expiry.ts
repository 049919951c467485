import { Logger } from '@nestjs/common';
import type { WebSocket } from 'ws';
import { CloseCode } from '../../agents/protocol/agent-protocol';

/** How often open sockets are compared against their credential's expiry. */
export const CREDENTIAL_SWEEP_MS = 1000;

/**
 * Closes a WebSocket with 4001 when the PAT or session cookie it was opened with expires
 * (agent-protocol §1 for agents; the same code for device-session clients). One sweep a second
 * against the relay clock rather than a timer per socket: no setTimeout overflow past 24.8 days,
 * and a test that moves the clock sees the close within a second.
 */
export class CredentialExpiry {
  private readonly logger = new Logger('WebSocket');
  private readonly watched = new Map<WebSocket, number>();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly nowMs: () => number) {}

  watch(socket: WebSocket, expiresAt: Date | null): void {
    if (!expiresAt) return;
    this.watched.set(socket, expiresAt.getTime());
    socket.once('close', () => this.watched.delete(socket));
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
    for (const [socket, expiresAt] of this.watched) {
      if (expiresAt > now) continue;
      this.watched.delete(socket);
      if (socket.readyState !== socket.OPEN) continue;
      this.logger.log('Closed a WebSocket (4001): its credential expired');
      socket.close(CloseCode.revoked, 'credential expired');
    }
  }
}

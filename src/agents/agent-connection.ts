import type { WebSocket } from 'ws';
import type { AgentHello } from './protocol/agent-protocol';

/** Who opened an agent socket: the PAT and its issuer, as verified at the upgrade. */
export interface AgentIssuer {
  userId: number;
  tokenId: number;
  tokenExpiresAt: Date | null;
}

/** One open agent socket. Replaced connections and closed ones are distinct objects, never reused. */
export class AgentConnection {
  hello: AgentHello = {};

  constructor(
    readonly name: string,
    readonly socket: WebSocket,
    readonly issuer: AgentIssuer,
  ) {}

  get open(): boolean {
    return this.socket.readyState === this.socket.OPEN;
  }

  /** Sends a text (object) or binary frame; false when the socket is no longer open. */
  send(frame: object | Buffer): boolean {
    if (!this.open) return false;
    this.socket.send(Buffer.isBuffer(frame) ? frame : JSON.stringify(frame));
    return true;
  }

  close(code: number, reason: string): void {
    if (this.socket.readyState === this.socket.CLOSED || this.socket.readyState === this.socket.CLOSING) return;
    this.socket.close(code, reason);
  }
}

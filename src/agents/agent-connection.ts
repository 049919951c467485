import type { WebSocket } from 'ws';
import type { AgentHello } from './protocol/agent-protocol';

/** Back-pressure: past this much unsent data on a socket, the relay sends it nothing more for now. */
export const MAX_UNSENT_BYTES = 8 * 1024 * 1024;

/** Who opened an agent socket: the PAT and its issuer, as verified at the upgrade. */
export interface AgentIssuer {
  userId: number;
  tokenId: number;
}

/** One open agent socket. Replaced connections and closed ones are distinct objects, never reused. */
export class AgentConnection {
  hello: AgentHello = {};
  /** Device lists with sessions refused to this socket that were logged (AgentGateway caps them). */
  refusalsLogged = 0;

  constructor(
    readonly name: string,
    readonly socket: WebSocket,
    readonly issuer: AgentIssuer,
  ) {}

  get open(): boolean {
    return this.socket.readyState === this.socket.OPEN;
  }

  /**
   * Sends a text (object) or binary frame: `closed` when the socket is no longer open, `busy` when
   * the agent is not reading (more than MAX_UNSENT_BYTES still waiting in the send buffer), so one
   * stalled agent cannot make the relay buffer without bound.
   */
  send(frame: object | Buffer): 'sent' | 'closed' | 'busy' {
    if (!this.open) return 'closed';
    if (this.socket.bufferedAmount > MAX_UNSENT_BYTES) return 'busy';
    this.socket.send(Buffer.isBuffer(frame) ? frame : JSON.stringify(frame));
    return 'sent';
  }

  close(code: number, reason: string): void {
    if (this.socket.readyState === this.socket.CLOSED || this.socket.readyState === this.socket.CLOSING) return;
    this.socket.close(code, reason);
  }
}

import type { WebSocket } from 'ws';

/**
 * WebSocket liveness: every interval each tracked socket gets a ping; one that has not answered the
 * previous ping with a pong by then is terminated (its 'close' handlers run as for any close).
 */
export class WsHeartbeat {
  private readonly awaitingPong = new Map<WebSocket, boolean>();
  private readonly timer: NodeJS.Timeout;

  constructor(intervalMs: number, onTick: () => void = () => undefined) {
    this.timer = setInterval(() => {
      this.beat();
      onTick();
    }, intervalMs);
    this.timer.unref();
  }

  track(socket: WebSocket): void {
    this.awaitingPong.set(socket, false);
    socket.on('pong', () => this.awaitingPong.set(socket, false));
    socket.on('close', () => this.awaitingPong.delete(socket));
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private beat(): void {
    for (const [socket, waiting] of this.awaitingPong) {
      // A socket in its closing handshake (e.g. after a 1009) stops reading; let that close finish
      // instead of cutting it off with a 1006.
      if (socket.readyState !== socket.OPEN) continue;
      if (waiting) {
        this.awaitingPong.delete(socket);
        socket.terminate();
        continue;
      }
      this.awaitingPong.set(socket, true);
      socket.ping();
    }
  }
}

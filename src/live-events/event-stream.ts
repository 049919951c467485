import type { Writable } from 'node:stream';

/**
 * One server-sent-events connection (text/event-stream framing, WHATWG HTML §9.2). Writes never
 * wait: a client that stops reading would otherwise make the relay buffer events for it without
 * limit, so once more than `maxBufferedBytes` are queued unsent the connection is dropped (the
 * browser's EventSource reconnects and the dashboard refetches what it shows).
 */
export class EventStream {
  private ended = false;
  private readonly endListeners: ((reason: 'dropped' | 'closed') => void)[] = [];

  constructor(
    private readonly out: Writable,
    private readonly maxBufferedBytes: number,
    onEnd?: (reason: 'dropped' | 'closed') => void,
  ) {
    if (onEnd) this.endListeners.push(onEnd);
    out.once('close', () => this.finish('closed'));
  }

  /** Calls back once when the stream ends (closed by either side, or dropped). */
  onEnd(listener: (reason: 'dropped' | 'closed') => void): void {
    if (this.ended) listener('closed');
    else this.endListeners.push(listener);
  }

  get open(): boolean {
    return !this.ended;
  }

  /** Sends one named event with a JSON payload; false when the stream is (or just got) closed. */
  send(event: string, data: unknown): boolean {
    return this.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  /** A comment line: keeps proxies and the idle connection alive, ignored by EventSource. */
  ping(): boolean {
    return this.write(': ping\n\n');
  }

  /** Sends a last event (when given) and ends the response. */
  close(last?: { event: string; data: unknown }): void {
    if (this.ended) return;
    if (last) this.send(last.event, last.data);
    this.finish('closed');
    this.out.end();
  }

  /** The raw first lines: the reconnection delay. */
  writeRetry(ms: number): boolean {
    return this.write(`retry: ${ms}\n\n`);
  }

  private write(chunk: string): boolean {
    if (this.ended) return false;
    if (this.out.writableLength + Buffer.byteLength(chunk) > this.maxBufferedBytes) {
      this.finish('dropped');
      this.out.destroy();
      return false;
    }
    this.out.write(chunk);
    return true;
  }

  private finish(reason: 'dropped' | 'closed'): void {
    if (this.ended) return;
    this.ended = true;
    for (const listener of this.endListeners.splice(0)) listener(reason);
  }
}

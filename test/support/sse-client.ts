import http from 'node:http';

export interface ServerSentEvent {
  event: string;
  data: any;
}

/**
 * A real HTTP client reading GET /api/v1/events as EventSource would (WHATWG framing): every event
 * is queued for `next()`; `ended` resolves when the relay closes the stream.
 */
export class SseClient {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly ended: Promise<void>;
  private readonly queue: ServerSentEvent[] = [];
  private waiters: { match: (e: ServerSentEvent) => boolean; resolve: (e: ServerSentEvent) => void }[] = [];
  private buffer = '';

  private constructor(
    private readonly req: http.ClientRequest,
    private readonly res: http.IncomingMessage,
  ) {
    this.status = res.statusCode ?? 0;
    this.headers = res.headers;
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => this.take(chunk));
    this.ended = new Promise((resolve) => {
      res.once('end', resolve);
      res.once('close', resolve);
    });
  }

  static connect(baseUrl: string, headers: Record<string, string>, path = '/api/v1/events'): Promise<SseClient> {
    return new Promise((resolve, reject) => {
      const req = http.get(`${baseUrl}${path}`, { headers: { Accept: 'text/event-stream', ...headers } }, (res) =>
        resolve(new SseClient(req, res)),
      );
      req.once('error', reject);
    });
  }

  /** The body of a non-stream answer (a 401's JSON). */
  async body(): Promise<any> {
    await this.ended;
    return JSON.parse(this.buffer);
  }

  /** The next queued event with this name (and matching `where`), waiting up to `timeoutMs`. */
  next(event: string, where: (data: any) => boolean = () => true, timeoutMs = 10_000): Promise<ServerSentEvent> {
    const match = (e: ServerSentEvent) => e.event === event && where(e.data);
    const index = this.queue.findIndex(match);
    if (index >= 0) return Promise.resolve(this.queue.splice(index, 1)[0]);
    return new Promise((resolve, reject) => {
      const waiter = { match, resolve: (e: ServerSentEvent) => (clearTimeout(timer), resolve(e)) };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`no "${event}" event within ${timeoutMs} ms; received: ${JSON.stringify(this.queue)}`));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  /** Names of the events received and not yet taken by next(). */
  pending(): string[] {
    return this.queue.map((e) => e.event);
  }

  close(): void {
    this.req.destroy();
  }

  private take(chunk: string): void {
    if (this.status !== 200) {
      this.buffer += chunk;
      return;
    }
    this.buffer += chunk;
    let end: number;
    while ((end = this.buffer.indexOf('\n\n')) >= 0) {
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event: ')) event = line.slice(7);
        else if (line.startsWith('data: ')) data.push(line.slice(6));
      }
      if (!data.length) continue; // comment pings, retry
      this.deliver({ event, data: JSON.parse(data.join('\n')) });
    }
  }

  private deliver(e: ServerSentEvent): void {
    const waiter = this.waiters.find((w) => w.match(e));
    if (waiter) {
      this.waiters = this.waiters.filter((w) => w !== waiter);
      waiter.resolve(e);
    } else {
      this.queue.push(e);
    }
  }
}

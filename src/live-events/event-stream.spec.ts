import { PassThrough } from 'node:stream';
import { EventStream } from './event-stream';

describe('EventStream', () => {
  it('frames named events with JSON data, and comment pings', () => {
    const out = new PassThrough();
    const stream = new EventStream(out, 1 << 20);
    stream.writeRetry(3000);
    stream.send('build.created', { build_id: 1 });
    stream.ping();
    expect(out.read().toString()).toBe('retry: 3000\n\nevent: build.created\ndata: {"build_id":1}\n\n: ping\n\n');
  });

  it('drops a client that stops reading once the unsent bytes pass the bound, instead of buffering on', () => {
    // A PassThrough nobody reads: its buffer only grows, like a socket whose peer stopped reading.
    const out = new PassThrough({ highWaterMark: 16 });
    const ends: string[] = [];
    const stream = new EventStream(out, 1024, (reason) => ends.push(reason));
    let sent = 0;
    while (stream.send('comment.created', { comment_id: sent, build_id: 1 })) sent++;
    expect(sent).toBeGreaterThan(10);
    expect(out.writableLength).toBeLessThanOrEqual(1024);
    expect(stream.open).toBe(false);
    expect(out.destroyed).toBe(true);
    expect(ends).toEqual(['dropped']);
    expect(stream.send('comment.created', {})).toBe(false);
  });

  it('close() sends the last event, ends the response and reports once', () => {
    const out = new PassThrough();
    const ends: string[] = [];
    const stream = new EventStream(out, 1 << 20, (reason) => ends.push(reason));
    stream.close({ event: 'session.ended', data: { reason: 'signed_out' } });
    stream.close();
    expect(out.read().toString()).toBe('event: session.ended\ndata: {"reason":"signed_out"}\n\n');
    expect(out.writableEnded).toBe(true);
    expect(ends).toEqual(['closed']);
  });
});

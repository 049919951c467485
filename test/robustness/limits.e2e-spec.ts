import { readFileSync } from 'node:fs';
import { connect, Socket } from 'node:net';
import { fixture } from '../support/build-fixtures';
import { useTestRelay } from '../support/use-relay';

/**
 * What one client can hold (issue 16 item 6): a body trickling in a byte at a time on a small
 * JSON route is cut by the whole-request deadline (the idle timer resets on every byte), streamed
 * uploads are not; and the number of open connections is capped (SVC_MAX_CONNECTIONS).
 */
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A raw HTTP/1.1 exchange: writes `head`, then `body` in pieces every `gapMs`; resolves with what came
 * back and how many body bytes were written before the connection closed.
 */
function trickle(port: number, head: string, body: Buffer, pieces: number, gapMs: number) {
  const socket = connect(port, '127.0.0.1');
  let text = '';
  let stopped = false;
  let sent = 0;
  const started = Date.now();
  socket.on('data', (c: Buffer) => (text += c.toString('latin1')));
  const ended = new Promise<{ status: number; text: string; ms: number; sent: number }>((resolve) => {
    socket.on('close', () => {
      stopped = true;
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), text, ms: Date.now() - started, sent });
    });
    socket.on('error', () => undefined);
  });
  void (async () => {
    socket.write(head);
    const size = Math.ceil(body.length / pieces);
    for (let at = 0; at < body.length && !stopped; at += size) {
      socket.write(body.subarray(at, at + size));
      sent += Math.min(size, body.length - at);
      await sleep(gapMs);
    }
    if (!stopped) socket.end();
  })();
  return ended;
}

describe('whole-request deadline (SVC_REQUEST_TIMEOUT_MS)', () => {
  const ctx = useTestRelay({ SVC_REQUEST_TIMEOUT_MS: '800' });

  it('a JSON body sent a byte at a time is answered 408 at the deadline and the connection closed', async () => {
    const body = Buffer.from(JSON.stringify({ email: 'slow@example.com', password: 'x'.repeat(40) }));
    const head =
      'POST /api/v1/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
      `Content-Length: ${body.length}\r\n\r\n`;
    // 66 bytes, one every 100 ms: ~6.6 s if nothing cuts it; each byte resets the idle timer
    const result = await trickle(ctx.relay.port, head, body, body.length, 100);
    expect(result.status).toBe(408);
    expect(result.text).toContain('{"error":"Request timed out"}');
    // Cut while the body was still arriving: the deadline ended it, not the end of the body (a relay
    // without it would read all 66 bytes, and answer the login 401).
    expect(result.sent).toBeLessThan(body.length);
  });

  it('so is a chunked JSON body (no Content-Length: the deadline still sees a body coming)', async () => {
    const json = JSON.stringify({ email: 'slow@example.com', password: 'x'.repeat(40) });
    const body = Buffer.from([...json].map((c) => `1\r\n${c}\r\n`).join('') + '0\r\n\r\n');
    const head =
      'POST /api/v1/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n';
    const result = await trickle(ctx.relay.port, head, body, json.length, 100);
    expect(result.status).toBe(408);
    expect(result.text).toContain('{"error":"Request timed out"}');
    expect(result.sent).toBeLessThan(body.length);
  });

  it('a streamed upload slower than the deadline still completes', async () => {
    const admin = await ctx.members.admin();
    const apk = readFileSync(fixture('string-label.apk'));
    const boundary = '----svcslowupload';
    const body = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="app.apk"\r\n` +
          'Content-Type: application/vnd.android.package-archive\r\n\r\n',
      ),
      apk,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const head =
      `POST /api/v1/builds HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: ${admin.cookie}\r\nConnection: close\r\n` +
      `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${body.length}\r\n\r\n`;
    const result = await trickle(ctx.relay.port, head, body, 8, 250); // ~2 s, past the 0.8 s deadline
    expect(result.status).toBe(201);
    expect(result.ms).toBeGreaterThan(1500);
  });
});

describe('connection cap (SVC_MAX_CONNECTIONS)', () => {
  const ctx = useTestRelay({ SVC_MAX_CONNECTIONS: '4' });

  it('past the cap a new connection is closed at once; below it again, requests are served', async () => {
    const held: Socket[] = [];
    for (let i = 0; i < 4; i++) {
      const socket = connect(ctx.relay.port, '127.0.0.1');
      await new Promise((r) => socket.once('connect', r));
      held.push(socket);
    }
    await sleep(100);
    await expect(fetch(`${ctx.relay.url}/api/v1/health`)).rejects.toThrow();

    held.pop()!.destroy();
    await sleep(100);
    expect((await fetch(`${ctx.relay.url}/api/v1/health`, { headers: { Connection: 'close' } })).status).toBe(200);
    for (const socket of held) socket.destroy();
  });
});

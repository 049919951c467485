/**
 * Light load (security.md §6.3 #81, §5.2 #60): no timing assertions, only "keeps serving, no
 * errors". 200 concurrent mixed requests against one relay, and slowloris-style clients that
 * trickle their headers while others are served.
 */
import { readFileSync } from 'node:fs';
import { connect, Socket } from 'node:net';
import { join } from 'node:path';
import { fixture } from '../support/build-fixtures';
import { images } from '../support/images';
import { uploadTestBuild } from '../support/builds';
import { useTestRelay } from '../support/use-relay';
import { contractBreach, eventually, filesUnder, multipartBody, RawResponse, send } from './support/http';

/**
 * No timing assertion in the mixed load: each request may take this long (a busy 2-core CI with
 * other test runs, PostgreSQL's pool) before it counts as unanswered.
 */
const BUSY_MS = 60_000;

describe('light load', () => {
  const ctx = useTestRelay();

  it('200 concurrent mixed requests: no 5xx, every error is { error }, all uploads listed, no temp files left', async () => {
    const { relay, members } = ctx;
    const dev = await members.member('Developer');
    const pat = await members.pat(dev, 'view,builds:write');
    const { id: buildId } = await uploadTestBuild(members, dev);
    const before = (await members.withPat(pat, 'get', '/api/v1/builds?limit=1').expect(200)).body.total;
    const apks = ['string-label.apk', 'literal-label.apk'].map((name) => readFileSync(fixture(name)));

    const B = 'loadboundary';
    const kinds: { kind: string; run: () => Promise<RawResponse> }[] = [];
    for (let i = 0; i < 200; i++) {
      const slot = i % 5;
      if (slot === 0) kinds.push({ kind: 'status', run: () => send(relay.url, { method: 'GET', path: '/api/v1/auth/status' }, BUSY_MS) });
      if (slot === 1) {
        kinds.push({
          kind: 'list',
          run: () => send(relay.url, { method: 'GET', path: `/api/v1/builds?limit=100&page=${i % 3}`, headers: { authorization: `Bearer ${pat}` } }, BUSY_MS),
        });
      }
      if (slot === 2) {
        kinds.push({
          kind: 'upload',
          run: () =>
            send(relay.url, {
              method: 'POST',
              path: '/api/v1/builds',
              headers: { authorization: `Bearer ${pat}`, 'content-type': `multipart/form-data; boundary=${B}` },
              body: multipartBody(B, [
                { name: 'label', value: `load-${i}` },
                { name: 'file', value: apks[i % 2], filename: `b${i}.apk` },
              ]),
            }, BUSY_MS),
        });
      }
      if (slot === 3) {
        kinds.push({
          kind: 'login',
          run: () =>
            send(relay.url, {
              method: 'POST',
              path: '/api/v1/auth/login',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ email: i % 2 ? dev.email : `nobody-${i}@example.com`, password: `wrong-${i}` }),
            }, BUSY_MS),
        });
      }
      if (slot === 4) {
        kinds.push({
          kind: 'comment',
          run: () =>
            send(relay.url, {
              method: 'POST',
              path: '/api/v1/comments',
              headers: { authorization: `Bearer ${pat}`, 'content-type': `multipart/form-data; boundary=${B}` },
              body: multipartBody(B, [
                { name: 'build_id', value: String(buildId) },
                { name: 'body', value: `load comment ${i}` },
                ...(i % 2 ? [{ name: 'attachment', value: images.png(), filename: 's.png' }] : []),
              ]),
            }, BUSY_MS),
        });
      }
    }

    const results = await Promise.all(kinds.map(async (k) => ({ kind: k.kind, res: await k.run() })));
    const breaches = results.map(({ kind, res }) => contractBreach(res, kind)).filter((b) => b !== null);
    expect(breaches).toEqual([]);
    const byKind = (kind: string) => results.filter((r) => r.kind === kind).map((r) => r.res.status);
    expect(new Set(byKind('status'))).toEqual(new Set([200]));
    expect(new Set(byKind('list'))).toEqual(new Set([200]));
    expect(new Set(byKind('upload'))).toEqual(new Set([201]));
    expect(new Set(byKind('comment'))).toEqual(new Set([201]));
    // Wrong passwords: 401 until the throttle for (address, e-mail) kicks in, then 429.
    expect(byKind('login').every((s) => s === 401 || s === 429)).toBe(true);
    expect(byKind('login')).toContain(429);

    const uploaded = results.filter((r) => r.kind === 'upload').map((r) => JSON.parse(r.res.text).id as number);
    const listed: number[] = [];
    for (let page = 0; ; page++) {
      const res = await members.withPat(pat, 'get', `/api/v1/builds?limit=100&page=${page}`).expect(200);
      listed.push(...res.body.items.map((b: { id: number }) => b.id));
      if (res.body.items.length < 100) break;
    }
    expect(listed.length).toBe(before + uploaded.length);
    expect(listed).toEqual(expect.arrayContaining(uploaded));
    const comments = (await members.as(dev, 'get', `/api/v1/comments?build_id=${buildId}`).expect(200)).body;
    expect(comments).toHaveLength(byKind('comment').length);
    expect(await eventually(() => filesUnder(join(relay.dataDir, 'tmp')).length === 0)).toBe(true);
    expect(filesUnder(join(relay.dataDir, 'builds'))).toHaveLength(before + uploaded.length);
  }, 4 * BUSY_MS);

  it('slowloris: clients trickling their headers do not block anyone else', async () => {
    const { relay } = ctx;
    const port = Number(new URL(relay.url).port);
    const sockets: Socket[] = [];
    const timers: NodeJS.Timeout[] = [];
    try {
      for (let i = 0; i < 20; i++) {
        const socket = connect(port, '127.0.0.1');
        socket.on('error', () => undefined);
        socket.write(`POST /api/v1/builds HTTP/1.1\r\nHost: 127.0.0.1\r\n`);
        let n = 0;
        timers.push(setInterval(() => socket.writable && socket.write(`X-Slow-${n++}: ${'a'.repeat(10)}\r\n`), 100));
        sockets.push(socket);
      }
      await new Promise((r) => setTimeout(r, 300));
      // Meanwhile everyone else is answered normally.
      const others = await Promise.all(
        Array.from({ length: 30 }, () => send(relay.url, { method: 'GET', path: '/api/v1/auth/status' }, 5000)),
      );
      expect(others.map((r) => r.status)).toEqual(Array(30).fill(200));
      expect(sockets.filter((s) => !s.destroyed).length).toBeGreaterThan(0); // they really were still trickling
    } finally {
      timers.forEach(clearInterval);
      sockets.forEach((s) => s.destroy());
    }
    await relay.http().get('/api/v1/auth/status').expect(200);
  });
});

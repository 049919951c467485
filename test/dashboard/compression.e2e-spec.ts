import http from 'node:http';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { uploadTestBuild } from '../support/builds';
import { MemberFactory, type TestMember } from '../support/factory';
import { SseClient } from '../support/sse-client';
import { startTestRelay, type TestRelay } from '../support/test-relay';

/** The bytes as they came over the wire: supertest would decode them before a test could look. */
function getRaw(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

const ASSET = '/assets/index-AbC123.js';
/** Over the 1 KB below which the build writes no compressed copies; repetitive, as real code is. */
const SCRIPT = Buffer.from(Array.from({ length: 200 }, (_, i) => `export const value${i} = "${'x'.repeat(i % 17)}";\n`).join(''));

/** `vite build` output as the dashboard's precompress plugin leaves it: each asset, its .br and its .gz. */
function webDistWithVariants(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-web-dist-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><html><head><script type="module" src="/assets/index-AbC123.js"></script></head><body><div id="root"></div></body></html>');
  writeFileSync(join(dir, 'assets', 'index-AbC123.js'), SCRIPT);
  writeFileSync(join(dir, 'assets', 'index-AbC123.js.br'), brotliCompressSync(SCRIPT));
  writeFileSync(join(dir, 'assets', 'index-AbC123.js.gz'), gzipSync(SCRIPT));
  return dir;
}

describe('compressed responses (issue 24, item 8)', () => {
  let relay: TestRelay;
  let webDir: string;
  let members: MemberFactory;
  let admin: TestMember;
  let buildId: number;

  beforeAll(async () => {
    webDir = webDistWithVariants();
    relay = await startTestRelay({ SVC_WEB_DIR: webDir });
    members = new MemberFactory(relay);
    admin = await members.admin();
    for (let i = 0; i < 4; i++) buildId = (await uploadTestBuild(members, admin)).id;
  });
  afterAll(async () => {
    await relay.close();
    rmSync(webDir, { recursive: true, force: true });
  });

  describe('dashboard assets, compressed at build time', () => {
    it('answers Accept-Encoding: br with the brotli copy, labelled as the script it decodes to', async () => {
      const res = await getRaw(relay.url + ASSET, { 'Accept-Encoding': 'gzip, deflate, br' });
      expect(res.status).toBe(200);
      expect(res.headers['content-encoding']).toBe('br');
      expect(res.headers['content-type']).toMatch(/^text\/javascript|^application\/javascript/);
      expect(res.headers['vary']).toMatch(/Accept-Encoding/i);
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(Number(res.headers['content-length'])).toBe(res.body.length);
      expect(res.body.length).toBeLessThan(SCRIPT.length);
      expect(brotliDecompressSync(res.body).equals(SCRIPT)).toBe(true);
    });

    it('answers gzip-only clients with the gzip copy, and a refused br (q=0) with gzip too', async () => {
      for (const accept of ['gzip', 'br;q=0, gzip;q=0.8']) {
        const res = await getRaw(relay.url + ASSET, { 'Accept-Encoding': accept });
        expect({ accept, encoding: res.headers['content-encoding'] }).toEqual({ accept, encoding: 'gzip' });
        expect(res.headers['vary']).toMatch(/Accept-Encoding/i);
        expect(res.headers['content-type']).toMatch(/javascript/);
        expect(gunzipSync(res.body).equals(SCRIPT)).toBe(true);
      }
    });

    it('answers a client that asks for no encoding (or refuses both) with the file itself, and a distinct ETag per encoding', async () => {
      const etags = new Set<string>();
      for (const accept of [undefined, 'identity', 'br;q=0, gzip;q=0']) {
        const res = await getRaw(relay.url + ASSET, accept ? { 'Accept-Encoding': accept } : {});
        expect(res.headers['content-encoding']).toBeUndefined();
        expect(res.headers['vary']).toMatch(/Accept-Encoding/i);
        expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
        expect(res.body.equals(SCRIPT)).toBe(true);
        etags.add(res.headers.etag!);
      }
      for (const accept of ['br', 'gzip']) etags.add((await getRaw(relay.url + ASSET, { 'Accept-Encoding': accept })).headers.etag!);
      expect(etags.size).toBe(3);
    });

    it('never answers a byte range of an encoded copy: the whole encoded file', async () => {
      const res = await getRaw(relay.url + ASSET, { 'Accept-Encoding': 'br', Range: 'bytes=0-9' });
      expect(res.status).toBe(200);
      expect(brotliDecompressSync(res.body).equals(SCRIPT)).toBe(true);
    });

    it('does not serve the compressed copies under their own names', async () => {
      expect((await getRaw(`${relay.url}${ASSET}.br`)).status).toBe(404);
      expect((await getRaw(`${relay.url}${ASSET}.gz`)).status).toBe(404);
    });
  });

  describe('JSON answers', () => {
    it('compresses a list over 1 KB for a client that accepts gzip, and keeps its ETag and 304', async () => {
      const plain = await getRaw(`${relay.url}/api/v1/builds`, { Cookie: admin.cookie });
      expect(plain.body.length).toBeGreaterThan(1024);
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.headers['vary']).toMatch(/Accept-Encoding/i);

      const zipped = await getRaw(`${relay.url}/api/v1/builds`, { Cookie: admin.cookie, 'Accept-Encoding': 'gzip' });
      expect(zipped.headers['content-encoding']).toBe('gzip');
      expect(zipped.headers['vary']).toMatch(/Accept-Encoding/i);
      expect(zipped.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(Number(zipped.headers['content-length'])).toBe(zipped.body.length);
      expect(zipped.body.length).toBeLessThan(plain.body.length);
      expect(gunzipSync(zipped.body).equals(plain.body)).toBe(true);
      // Weak: the same content in other bytes (RFC 9110 §8.8.1); a strong one would have to differ.
      expect(zipped.headers.etag).toMatch(/^W\//);

      const again = await getRaw(`${relay.url}/api/v1/builds`, {
        Cookie: admin.cookie,
        'Accept-Encoding': 'gzip',
        'If-None-Match': zipped.headers.etag!,
      });
      expect(again.status).toBe(304);
      expect(again.body.length).toBe(0);
    });

    it('answers br clients with brotli', async () => {
      const res = await getRaw(`${relay.url}/api/v1/builds`, { Cookie: admin.cookie, 'Accept-Encoding': 'gzip, br' });
      expect(res.headers['content-encoding']).toBe('br');
      expect(JSON.parse(brotliDecompressSync(res.body).toString('utf8')).items).toHaveLength(4);
    });

    it('leaves small answers alone', async () => {
      const res = await getRaw(`${relay.url}/api/v1/auth/status`, { 'Accept-Encoding': 'gzip, br' });
      expect(res.status).toBe(200);
      expect(res.headers['content-encoding']).toBeUndefined();
      expect(JSON.parse(res.body.toString('utf8'))).toEqual(expect.any(Object));
    });
  });

  describe('never compressed', () => {
    it('a build download: the stored bytes as they are', async () => {
      const res = await getRaw(`${relay.url}/api/v1/builds/${buildId}/download`, { Cookie: admin.cookie, 'Accept-Encoding': 'gzip, br' });
      expect(res.status).toBe(200);
      expect(res.headers['content-encoding']).toBeUndefined();
      expect(Number(res.headers['content-length'])).toBe(res.body.length);
      expect(res.body.subarray(0, 2).toString('latin1')).toBe('PK');
    });

    it('the live event stream: it must reach the browser event by event', async () => {
      const events = await SseClient.connect(relay.url, { Cookie: admin.cookie, 'Accept-Encoding': 'gzip, br' });
      try {
        expect(events.status).toBe(200);
        expect(events.headers['content-encoding']).toBeUndefined();
        expect((await events.next('ready')).event).toBe('ready');
      } finally {
        events.close();
      }
    });
  });
});

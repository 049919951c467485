import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { uploadTestBuild } from '../support/builds';
import { TestMember } from '../support/factory';
import { useTestRelay } from '../support/use-relay';

/** The fuzzer's field name: 13.7k characters. */
const LONG_NAME = 'f'.repeat(13_700);
/** 3.2 MB each: two of them pass the comment route's Content-Length check (5 MB + form overhead). */
const FILE_BYTES = 3_200_000;
const BOUNDARY = '----svcunexpectedparts';

/** A multipart body: text fields, then two files of `fileBytes` under `fileField`. */
function body(fields: Record<string, string>, fileField: string, fileBytes: number): Buffer {
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    parts.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  }
  for (const i of [1, 2]) {
    parts.push(
      Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${fileField}"; filename="f${i}.png"\r\nContent-Type: image/png\r\n\r\n`),
      randomBytes(fileBytes),
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(parts);
}

interface Answer {
  status: number;
  body: any;
}

/**
 * node:http as curl sends a large body: with `Expect: 100-continue` the body goes only after the
 * relay's 100 Continue (or its final answer, and then not at all). Rejects when no final answer
 * comes within `giveUpMs` (a generous bound: this test is about an answer arriving, not its speed).
 */
function post(port: number, method: string, path: string, cookie: string, payload: Buffer, expectContinue: boolean, giveUpMs = 60_000): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {
      'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
      'content-length': String(payload.length),
      cookie,
      ...(expectContinue ? { expect: '100-continue' } : {}),
    };
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null });
      });
      res.on('error', reject);
    });
    req.setTimeout(giveUpMs, () => req.destroy(new Error(`${method} ${path} got no final answer`)));
    // A relay that answers and closes before the body is all sent: the answer is what counts.
    req.on('error', (err) => reject(err));
    if (expectContinue) req.on('continue', () => req.end(payload));
    else req.end(payload);
  });
}

/** Every multipart route, with the text fields it needs to get as far as its files. */
const ROUTES: { method: string; path: string; fields: (buildId: number) => Record<string, string>; imageLimit?: boolean }[] = [
  { method: 'POST', path: '/api/v1/comments', fields: (buildId) => ({ build_id: String(buildId), body: 'fuzzed' }) },
  { method: 'POST', path: '/api/v1/builds', fields: () => ({}) },
  { method: 'POST', path: '/api/v1/recordings/upload', fields: () => ({}) },
  // The 2 MB image routes refuse 6.4 MB by its Content-Length alone (413); smaller files reach the parts.
  { method: 'PATCH', path: '/api/v1/profile', fields: () => ({ display_name: 'Fuzz' }), imageLimit: true },
  { method: 'PATCH', path: '/api/v1/settings', fields: () => ({}), imageLimit: true },
  { method: 'POST', path: '/api/v1/invitations/accept', fields: () => ({ token: 'a'.repeat(64), password: 'long enough' }), imageLimit: true },
];

/**
 * Issue 36 item 11: a file part under a name a route does not take (a fuzzer's 13.7k-character one)
 * is refused with 400 naming the field, with or without `Expect: 100-continue`, on every multipart
 * route; nothing is left behind and the relay keeps serving.
 */
describe('unexpected multipart file parts (issue 36 item 11)', () => {
  const ctx = useTestRelay();
  let admin: TestMember;
  let buildId: number;

  beforeAll(async () => {
    admin = await ctx.members.admin();
    buildId = (await uploadTestBuild(ctx.members, admin)).id;
  });

  const tempFiles = () => readdirSync(join(ctx.relay.dataDir, 'tmp')).filter((n) => n.startsWith('upload-'));
  const comments = async () => (await ctx.members.as(admin, 'get', `/api/v1/comments?build_id=${buildId}`).expect(200)).body as unknown[];
  const stored = async () => [...(await ctx.relay.storedFiles('uploads/')), ...(await ctx.relay.storedFiles('builds/'))];
  const unexpected = { error: `Unexpected file field ${LONG_NAME.slice(0, 100)}…` };

  for (const route of ROUTES) {
    it.each([false, true])(`${route.method} ${route.path}: two 3.2 MB files under a 13.7k-character name get a final answer (Expect: 100-continue %s)`, async (expectContinue) => {
      const before = { comments: (await comments()).length, stored: await stored() };
      const answer = await post(ctx.relay.port, route.method, route.path, admin.cookie, body(route.fields(buildId), LONG_NAME, FILE_BYTES), expectContinue);
      if (route.imageLimit) expect(answer).toEqual({ status: 413, body: { error: expect.stringContaining('at most 2 MB') } });
      else expect(answer).toEqual({ status: 400, body: unexpected });
      if (route.imageLimit) {
        const small = await post(ctx.relay.port, route.method, route.path, admin.cookie, body(route.fields(buildId), LONG_NAME, 600_000), expectContinue);
        expect(small).toEqual({ status: 400, body: unexpected });
      }
      expect((await comments()).length).toBe(before.comments);
      expect(await stored()).toEqual(before.stored);
      expect(tempFiles()).toEqual([]);
    });
  }

  it('keeps serving', async () => {
    await ctx.relay.http().get('/api/v1/health').expect(200);
  });
});

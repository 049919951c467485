/**
 * The tus routes act on exactly the upload the relay authorized (docs/builds.md "Resumable
 * uploads"). @tus/server reads the upload id from the last `/` piece of the whole URL, query string
 * included, and URL-decodes it; the relay authorized the route's `:id`. Every verb is sent with
 * traversal in the path (encoded, double-encoded, behind a valid owner prefix) and in the query
 * string, at files inside the data folder (the database, tmp/, a tus-looking `x` + `x.json` pair)
 * and outside it (a sibling temp folder): every answer is 404 `{ "error" }`, nothing is touched,
 * another member's upload named through the query string stays theirs, the refused URLs are in the
 * request log whole, and the relay and its database still work afterwards.
 */
import Database from 'better-sqlite3';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { contractBreach, RawResponse, send } from '../robustness/support/http';
import type { TestMember } from '../support/factory';
import { testDialect } from '../support/test-relay';
import { useTestRelay } from '../support/use-relay';

const COLLECTION = '/api/v1/uploads/builds';
const CANARY = 'canary bytes';
const b64 = (value: string) => Buffer.from(value, 'utf8').toString('base64');
const enc = encodeURIComponent;

interface Canary {
  /** Where it is, relative to the tus folder (`<data>/tmp/tus`), as an attacker would name it. */
  relative: string;
  path: string;
  content: string | null; // null: the database, whose bytes change by themselves
}

describe('resumable uploads act only on the id the relay authorized (tus ids from the URL)', () => {
  const ctx = useTestRelay();
  let me: TestMember;
  let token: string;
  let otherToken: string;
  let mine: string;
  let theirs: string;
  let outside: string;
  const canaries: Canary[] = [];

  const tusHeaders = (auth: string) => ({ authorization: `Bearer ${auth}`, 'tus-resumable': '1.0.0' });

  async function createUpload(auth: string, length = 10): Promise<string> {
    const res = await send(ctx.relay.url, {
      method: 'POST',
      path: COLLECTION,
      headers: { ...tusHeaders(auth), 'upload-length': String(length), 'upload-metadata': `filename ${b64('a.apk')}` },
    });
    expect(res.status).toBe(201);
    return basename(String(res.headers.location));
  }

  const head = (auth: string, id: string) => send(ctx.relay.url, { method: 'HEAD', path: `${COLLECTION}/${id}`, headers: tusHeaders(auth) });

  /** A file with a tus-looking info file beside it, so a store that follows the path would accept it. */
  function plantPair(path: string, relative: string): void {
    writeFileSync(path, CANARY);
    writeFileSync(`${path}.json`, JSON.stringify({ id: basename(path), size: 1000, offset: 0, metadata: { filename: 'a.apk' }, creation_date: new Date().toISOString() }));
    canaries.push({ relative, path, content: CANARY }, { relative: `${relative}.json`, path: `${path}.json`, content: readFileSync(`${path}.json`, 'utf8') });
  }

  beforeAll(async () => {
    me = await ctx.members.member('Developer');
    token = await ctx.members.pat(me, 'view,builds:write');
    otherToken = await ctx.members.pat(await ctx.members.member('Developer'), 'view,builds:write');
    mine = await createUpload(token);
    theirs = await createUpload(otherToken);

    const data = ctx.relay.dataDir;
    const database = join(data, 'svc.sqlite');
    if (testDialect === 'sqlite') canaries.push({ relative: '../../svc.sqlite', path: database, content: null });
    else {
      writeFileSync(database, CANARY); // PostgreSQL keeps no file here: the same name, planted
      canaries.push({ relative: '../../svc.sqlite', path: database, content: CANARY });
    }
    writeFileSync(join(data, 'canary.txt'), CANARY);
    canaries.push({ relative: '../../canary.txt', path: join(data, 'canary.txt'), content: CANARY });
    plantPair(join(data, 'pair'), '../../pair');
    plantPair(join(data, 'tmp', 'canary'), '../canary');
    outside = mkdtempSync(join(dirname(data), 'svc-canary-'));
    plantPair(join(outside, 'victim'), `../../../${basename(outside)}/victim`);
  });
  afterAll(() => rmSync(outside, { recursive: true, force: true }));

  /** Canaries changed or gone since they were planted. */
  function touchedCanaries(): string[] {
    return canaries.flatMap((canary) => {
      if (!existsSync(canary.path)) return [`${canary.path} deleted`];
      if (canary.content === null) return statSync(canary.path).size > 0 ? [] : [`${canary.path} emptied`];
      const now = readFileSync(canary.path, 'utf8');
      return now === canary.content ? [] : [`${canary.path} changed to ${JSON.stringify(now.slice(0, 60))}`];
    });
  }

  /** Request paths naming `target` (relative to the tus folder) in every way a URL can smuggle it. */
  function smugglingPaths(target: string): string[] {
    const behindOwner = `${me.id}-x/../${target}`; // a valid owner prefix, then out of the folder
    const behindMine = `${mine}/../${target}`;
    return [
      `${COLLECTION}/${mine}?a=/${enc(target)}`,
      `${COLLECTION}/${mine}?a=/${enc(enc(target))}`,
      `${COLLECTION}/${mine}?a=/${target}`,
      `${COLLECTION}/${mine}/?a=/${enc(target)}`,
      `${COLLECTION}/${enc(target)}`,
      `${COLLECTION}/${enc(enc(target))}`,
      `${COLLECTION}/${enc(behindOwner)}`,
      `${COLLECTION}/${enc(enc(behindOwner))}`,
      `${COLLECTION}/${enc(behindMine)}`,
      `${COLLECTION}/${mine}/${target}`,
    ];
  }

  const patchHeaders = (auth: string, offset: number) => ({
    ...tusHeaders(auth),
    'upload-offset': String(offset),
    'content-type': 'application/offset+octet-stream',
  });

  it('HEAD, PATCH, DELETE and POST with traversal in the path or the query string touch no file and answer 404 { error }', async () => {
    const breaches: string[] = [];
    const check = (what: string, res: RawResponse, allowed: number[]) => {
      if (!allowed.includes(res.status)) breaches.push(`${what} → ${res.status} ${res.text.slice(0, 120)}`);
      // a HEAD answer has no body to hold { error }
      const shape = res.status >= 300 && !what.startsWith('HEAD') ? contractBreach(res, what) : null;
      if (shape) breaches.push(shape);
      for (const touched of touchedCanaries()) breaches.push(`${what}: ${touched}`);
    };
    for (const canary of canaries) {
      for (const path of smugglingPaths(canary.relative)) {
        check(`HEAD ${path}`, await send(ctx.relay.url, { method: 'HEAD', path, headers: tusHeaders(token) }), [404]);
        // the offset a store reading the canary would expect, so only the path decides
        const offset = canary.content?.length ?? 0;
        check(`PATCH ${path}`, await send(ctx.relay.url, { method: 'PATCH', path, headers: patchHeaders(token, offset), body: 'EVIL' }), [404]);
        check(`DELETE ${path}`, await send(ctx.relay.url, { method: 'DELETE', path, headers: tusHeaders(token) }), [404]);
        const post = await send(ctx.relay.url, {
          method: 'POST',
          path,
          headers: { ...tusHeaders(token), 'upload-length': '10', 'upload-metadata': `filename ${b64('a.apk')}` },
        });
        check(`POST ${path}`, post, [404]);
      }
      // creation ignores the URL past the collection: a query string names nothing
      const path = `${COLLECTION}?a=/${enc(canary.relative)}`;
      const created = await send(ctx.relay.url, {
        method: 'POST',
        path,
        headers: { ...tusHeaders(token), 'upload-length': '10', 'upload-metadata': `filename ${b64('a.apk')}` },
      });
      check(`POST ${path}`, created, [201]);
      if (created.status === 201) {
        expect(created.headers.location).toMatch(new RegExp(`^${COLLECTION}/${me.id}-[0-9a-f]{32}$`));
        const id = basename(String(created.headers.location));
        expect((await send(ctx.relay.url, { method: 'DELETE', path: `${COLLECTION}/${id}`, headers: tusHeaders(token) })).status).toBe(204);
      }
    }
    expect(breaches).toEqual([]);
    // my own upload was never the one acted on either
    const still = await head(token, mine);
    expect(still.status).toBe(200);
    expect(still.headers['upload-offset']).toBe('0');
  });

  it("another member's upload named through the query string is 404 on every verb and stays theirs, untouched", async () => {
    for (const path of [`${COLLECTION}/${mine}?x=/${theirs}`, `${COLLECTION}/${mine}?x=/${enc(theirs)}`, `${COLLECTION}/${mine}?x=%2F${theirs}`]) {
      const peek = await send(ctx.relay.url, { method: 'HEAD', path, headers: tusHeaders(token) });
      expect([path, peek.status]).toEqual([path, 404]);
      expect(peek.headers['upload-offset']).toBeUndefined();
      // 10 bytes: the whole of their upload, which would complete it as mine
      const write = await send(ctx.relay.url, { method: 'PATCH', path, headers: patchHeaders(token, 0), body: Buffer.alloc(10) });
      expect([path, write.status, JSON.parse(write.text)]).toEqual([path, 404, { error: 'Upload not found' }]);
      const remove = await send(ctx.relay.url, { method: 'DELETE', path, headers: tusHeaders(token) });
      expect([path, remove.status, JSON.parse(remove.text)]).toEqual([path, 404, { error: 'Upload not found' }]);
    }
    const theirsNow = await head(otherToken, theirs);
    expect(theirsNow.status).toBe(200);
    expect(theirsNow.headers['upload-offset']).toBe('0');
    expect(theirsNow.headers['upload-length']).toBe('10');
    expect((await head(token, mine)).headers['upload-offset']).toBe('0');
  });

  it('ids not in the relay\'s own form are 404 before anything reaches the disk, even for their owner', async () => {
    for (const id of [`${me.id}-x`, `${me.id}-${'0'.repeat(32)}.json`, `0${me.id}-${'a'.repeat(32)}`, `${me.id}-${'A'.repeat(32)}`, `${mine}x`, `${mine}%00`]) {
      const res = await send(ctx.relay.url, { method: 'DELETE', path: `${COLLECTION}/${id}`, headers: tusHeaders(token) });
      expect([id, res.status, JSON.parse(res.text)]).toEqual([id, 404, { error: 'Upload not found' }]);
    }
  });

  it('the request log shows refused tus requests with their whole URL, query string included', async () => {
    const path = `${COLLECTION}/${mine}?a=/${enc('../../svc.sqlite')}`;
    expect((await send(ctx.relay.url, { method: 'DELETE', path, headers: tusHeaders(token) })).status).toBe(404);
    const lines = (await ctx.relay.http().get('/api/v1/logs?lines=50').expect(200)).body.map((line: string) => JSON.parse(line).msg);
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^DELETE ${escapeRegExp(path)} 404 `)));
  });

  it('the relay still answers /health and its database still opens', async () => {
    const health = await ctx.relay.http().get('/api/v1/health').expect(200);
    expect(health.body.dependencies).toEqual(expect.objectContaining({ database: 'ok', storage: 'ok' }));
    await ctx.members.withPat(token, 'get', '/api/v1/builds').expect(200);
    if (testDialect === 'sqlite') {
      const db = new Database(join(ctx.relay.dataDir, 'svc.sqlite'), { readonly: true, fileMustExist: true });
      try {
        expect(db.prepare('SELECT count(*) AS n FROM users').get()).toEqual({ n: expect.any(Number) });
      } finally {
        db.close();
      }
    }
    expect(touchedCanaries()).toEqual([]);
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

import { createHash } from 'node:crypto';
import { parse } from 'node:querystring';
import { BuildQueryService } from '../../src/builds/build-query.service';
import { toBuildResponse } from '../../src/builds/builds.mapper';
import { createValidationPipe } from '../../src/common/validation/validation.pipe';
import { ListBuildsQuery } from '../../src/builds/dto/list-builds.query';
import { attachBuild } from '../support/build-fixtures';
import { rawBody } from '../support/raw-body';
import { useTestRelay } from '../support/use-relay';

/** Express's default ETag of a body (the `etag` package, weak): length in hex, then SHA-1 in base64. */
const weakEtag = (body: Buffer) => `W/"${body.length.toString(16)}-${createHash('sha1').update(body).digest('base64').slice(0, 27)}"`;

/**
 * GET /builds answers through Express's public res.send of a Buffer (docs/decisions.md, issue 23 chunk
 * 5a): the body is byte for byte JSON.stringify of the mapped page, with the headers, the ETag, the
 * 304 and the bodiless HEAD that res.send gives every JSON answer.
 */
describe('GET /builds on the wire', () => {
  const ctx = useTestRelay();
  let pat: string;
  beforeAll(async () => {
    pat = await ctx.members.pat(await ctx.members.member('QA'), 'builds:write');
    for (const [file, fields] of [['literal-label.apk', { status: 'Done' }], ['xml-root.app.zip', { label: 'é "quoted" \u2028 🙂' }]] as const) {
      await attachBuild(ctx.members.withPat(pat, 'post', '/api/v1/builds'), file, fields).expect(201);
    }
  });

  const get = (path: string, headers: Record<string, string> = {}) => {
    const req = ctx.members.withPat(pat, 'get', path).buffer(true).parse(rawBody);
    for (const [name, value] of Object.entries(headers)) req.set(name, value);
    return req;
  };

  // This route and RelayHttpAdapter.reply write JSON.stringify's bytes, as res.json does only while these are unset.
  it("the relay sets none of Express's JSON settings (replacer, spaces, escape)", () => {
    const app = ctx.relay.app.getHttpAdapter().getInstance() as { get(name: string): unknown };
    expect(['json replacer', 'json spaces', 'json escape'].map((name) => [name, app.get(name) ?? null])).toEqual([
      ['json replacer', null],
      ['json spaces', null],
      ['json escape', null],
    ]);
  });

  it.each(['', '?limit=1', '?limit=1&page=1', '?status=Rejected'])('GET /builds%s is JSON.stringify of the mapped page, with an ETag of it', async (query) => {
    const res = await get(`/api/v1/builds${query}`).expect(200);
    const dto = await createValidationPipe().transform(parse(query.slice(1)), { type: 'query', metatype: ListBuildsQuery });
    const page = await ctx.relay.app.get(BuildQueryService).list(dto as ListBuildsQuery);
    const expected = Buffer.from(JSON.stringify({ items: page.items.map(toBuildResponse), total: page.total }));
    expect((res.body as Buffer).toString('utf8')).toBe(expected.toString('utf8'));
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['content-length']).toBe(String(expected.length));
    expect(res.headers.etag).toBe(weakEtag(expected));
  });

  it('answers a fresh If-None-Match with 304 and no body, a stale one with the page', async () => {
    const first = await get('/api/v1/builds').expect(200);
    const etag = first.headers.etag;
    const fresh = await get('/api/v1/builds', { 'If-None-Match': etag }).expect(304);
    expect((fresh.body as Buffer).length).toBe(0);
    expect(fresh.headers['content-type']).toBeUndefined();
    expect(fresh.headers['content-length']).toBeUndefined();
    expect(fresh.headers.etag).toBe(etag);
    const stale = await get('/api/v1/builds', { 'If-None-Match': 'W/"1-stale"' }).expect(200);
    expect(stale.body).toEqual(first.body);
    await get('/api/v1/builds', { 'If-None-Match': etag, 'Cache-Control': 'no-cache' }).expect(200);
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    const got = await get('/api/v1/builds').expect(200);
    const head = await ctx.members.withPat(pat, 'head', '/api/v1/builds').expect(200);
    expect(head.text ?? '').toBe('');
    for (const name of ['content-type', 'content-length', 'etag']) expect(head.headers[name]).toBe(got.headers[name]);
  });
});

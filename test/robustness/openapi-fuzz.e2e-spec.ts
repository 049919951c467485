/**
 * Schemathesis-style fuzzing (security.md §8) with fast-check: every operation of the relay's own
 * OpenAPI document gets hostile path params, query strings, bodies and content types, sent as an
 * Admin cookie, a PAT and anonymously. Checks: never a 5xx; every non-2xx answer is exactly
 * `{ error: "<non-empty>" }` as JSON; the relay still answers /auth/status afterwards.
 *
 * Deterministic: fixed seed per operation, bounded runs. SVC_FUZZ_RUNS raises the runs per
 * operation for a longer local fuzz (docs/robustness.md).
 */
import fc from 'fast-check';
import { useTestRelay } from '../support/use-relay';
import { contractBreach, RawRequest, send } from './support/http';

const RUNS_PER_OPERATION = Number(process.env.SVC_FUZZ_RUNS ?? 12);
const SEED = Number(process.env.SVC_FUZZ_SEED ?? 20240611);

interface Operation {
  method: string;
  path: string;
  pathParams: string[];
  queryParams: string[];
  bodyProps: string[];
}

/** Operations left out for signed-in identities: they would end the very session the fuzz uses. */
const SESSION_ENDING = new Set(['POST /api/v1/auth/logout']);

const POLLUTION_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '__defineGetter__'];

const hostileString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    'a\u0000b',
    '../../etc/passwd',
    '..%2f..%2fsvc.sqlite',
    '%00',
    "' OR 1=1 --",
    '<script>alert(1)</script>',
    '${7*7}',
    '\r\nX-Evil: 1',
    '🙂'.repeat(50),
    'Ω≈ç√∫',
    '\uFEFF',
    '\uD800',
    'null',
    'undefined',
    'NaN',
    '-1',
    '0',
    '1e309',
    '0x10',
    '9999999999999999999999',
    'In Progress',
    'Admin',
    'view,agent',
  ),
  fc.integer({ min: 40_000, max: 200_000 }).map((n) => 'x'.repeat(n)),
);

/** JSON values of every kind, nested, including prototype-pollution keys. */
const hostileValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    hostileString,
    fc.constantFrom(null, true, false, 0, -1, 1.5, 2 ** 53, -(2 ** 63), 1e308, Number.MAX_SAFE_INTEGER),
    fc.integer(),
    fc.array(tie('value'), { maxLength: 4 }),
    tie('object'),
  ),
  object: fc
    .array(fc.tuple(fc.oneof(fc.constantFrom(...POLLUTION_KEYS), fc.string({ maxLength: 10 })), tie('value')), { maxLength: 4 })
    .map((entries) => ({ entries })),
})).value;

/** Renders a value as JSON text; objects are written by hand so `__proto__` stays an own key on the wire. */
function toJson(value: unknown): string {
  if (value && typeof value === 'object' && 'entries' in (value as object) && !Array.isArray(value)) {
    const entries = (value as { entries: [string, unknown][] }).entries;
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${toJson(v)}`).join(',')}}`;
  }
  if (Array.isArray(value)) return `[${value.map(toJson).join(',')}]`;
  if (typeof value === 'number' && !Number.isFinite(value)) return '1e999';
  return JSON.stringify(value) ?? 'null';
}

function bodyFor(op: Operation): fc.Arbitrary<string | undefined> {
  const keys = fc.constantFrom(...op.bodyProps, ...POLLUTION_KEYS, 'extra');
  const objectBody = fc
    .array(fc.tuple(keys, hostileValue), { maxLength: 6 })
    .map((entries) => toJson({ entries }));
  return fc.oneof(
    { weight: 4, arbitrary: objectBody },
    { weight: 1, arbitrary: hostileValue.map(toJson) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '{',
        '{"a":',
        '',
        'null',
        '[]',
        '"x"',
        '{"__proto__":{"isAdmin":true,"role":"Admin"}}',
        '{"constructor":{"prototype":{"polluted":1}}}',
        '\u0000',
        '1e99999',
        '{"a":1,"a":2}',
      ),
    },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

const contentType = fc.constantFrom(
  'application/json',
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=utf-16',
  'application/json; charset=koi8-r',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'multipart/form-data; boundary=zzz',
  'application/xml',
  'application/octet-stream',
  '',
);

function pathValue(): fc.Arbitrary<string> {
  return fc.oneof(
    hostileString.filter((s) => s.length < 2000).map((s) => encodeURIComponent(s) || '%20'),
    // Raw forms RESTler's InvalidDynamicObject uses, and broken percent-encoding.
    fc.constantFrom('1%3Finjected%3D1', '1%2F%3F%2F', '1%3F%3F', '%7B%7D', '%ZZ', '%', '%E0%A4%A', '..', '.', '1.0', '-0', '00001'),
    fc.bigInt({ min: 2n ** 31n, max: 2n ** 80n }).map(String),
  );
}

function queryFor(op: Operation): fc.Arbitrary<string> {
  const key = fc.oneof(
    fc.constantFrom(...op.queryParams, ...['page', 'limit', 'sort', 'dir', 'q', 'build_id', 'token', 'format', 'range']),
    fc.constantFrom('__proto__[x]', 'constructor[prototype][x]', 'a[b][c]', 'x[]', '__proto__'),
    fc.string({ maxLength: 8 }),
  );
  const pair = fc
    .tuple(key, fc.oneof(hostileString.filter((s) => s.length < 5000), fc.constantFrom('%ZZ', '%')))
    .map(([k, v]) => `${encodeKey(k)}=${v === '%ZZ' || v === '%' ? v : encodeURIComponent(v)}`);
  return fc.array(pair, { maxLength: 5 }).map((pairs) => (pairs.length ? `?${pairs.join('&')}` : ''));
}

function encodeKey(key: string): string {
  return encodeURIComponent(key).replace(/%5B/g, '[').replace(/%5D/g, ']');
}

function operationsOf(doc: { paths: Record<string, Record<string, any>> }): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const params: { in: string; name: string }[] = op.parameters ?? [];
      const schema = op.requestBody?.content?.['application/json']?.schema;
      const bodyProps = Object.keys(resolveSchema(doc, schema)?.properties ?? {});
      ops.push({
        method: method.toUpperCase(),
        path,
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
        queryParams: params.filter((p) => p.in === 'query').map((p) => p.name),
        bodyProps,
      });
    }
  }
  return ops;
}

function resolveSchema(doc: any, schema: any): any {
  if (schema?.$ref) return schema.$ref.split('/').slice(1).reduce((node: any, key: string) => node?.[key], doc);
  return schema;
}

describe('OpenAPI-driven fuzzing (fast-check)', () => {
  const ctx = useTestRelay({ SVC_MAX_BUILD_BYTES: '200000' });
  const breaches: string[] = [];
  const statuses = new Map<number, number>();

  it('answers every hostile request with a 4xx { error } (or a 2xx), never a 5xx, as Admin cookie, PAT and anonymous', async () => {
    const { relay, members } = ctx;
    const admin = await members.admin();
    const pat = await members.pat(admin, 'view,builds:write');
    const doc = (await relay.http().get('/api/v1/openapi.json').expect(200)).body;
    const ops = operationsOf(doc);
    expect(ops.length).toBeGreaterThan(40);
    const identities: Record<string, Record<string, string>> = {
      cookie: { cookie: admin.cookie },
      pat: { authorization: `Bearer ${pat}` },
      anonymous: {},
    };

    for (const [index, op] of ops.entries()) {
      const request = fc.record({
        identity: fc.constantFrom(...Object.keys(identities)),
        pathValues: fc.array(pathValue(), { minLength: op.pathParams.length, maxLength: op.pathParams.length }),
        query: queryFor(op),
        body: bodyFor(op),
        type: contentType,
      });
      await fc.assert(
        fc.asyncProperty(request, async (r) => {
          if (r.identity === 'cookie' && SESSION_ENDING.has(`${op.method} ${op.path}`)) return;
          let path = op.path;
          op.pathParams.forEach((name, i) => (path = path.replace(`{${name}}`, r.pathValues[i])));
          // `/uploads/{path}` takes a path with slashes.
          path = path.replace('{path}', r.pathValues[0] ?? 'x');
          const raw: RawRequest = { method: op.method, path: path + r.query, headers: { ...identities[r.identity] } };
          if (r.body !== undefined) {
            raw.body = r.body;
            if (r.type) raw.headers!['content-type'] = r.type;
          }
          const res = await send(relay.url, raw);
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          const breach = contractBreach(res, `[${r.identity}] ${op.method} ${raw.path.slice(0, 200)} body=${String(r.body).slice(0, 120)} type=${r.type}`);
          if (breach) breaches.push(breach);
          return breach === null;
        }),
        { seed: SEED + index, numRuns: RUNS_PER_OPERATION, endOnFailure: true },
      ).catch(() => undefined); // collected in `breaches`, reported together below
    }

    expect(breaches).toEqual([]);
    // The fuzz reached past authentication and validation, not only the front door.
    for (const status of [200, 400, 401, 404, 415]) expect(statuses.get(status) ?? 0).toBeGreaterThan(0);
    if (process.env.SVC_FUZZ_REPORT) console.log(Object.fromEntries(statuses));
    const status = await relay.http().get('/api/v1/auth/status');
    expect(status.status).toBe(200);
    expect(status.body).toEqual({ initialized: true, canInitialize: false });
    // The Admin's session and PAT survived the fuzz (nothing revoked them by accident).
    await relay.http().get('/api/v1/auth/me').set('Cookie', admin.cookie).expect(200);
    await relay.http().get('/api/v1/builds').set('Authorization', `Bearer ${pat}`).expect(200);
  });

  it('leaves no prototype pollution behind in the relay process', () => {
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });
});

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
import { MAX_JSON_DEPTH, TOO_DEEP_MESSAGE } from '../../src/common/validation/well-formed-input';
import { useTestRelay } from '../support/use-relay';
import { contractBreach, RawRequest, RawResponse, send } from './support/http';

const RUNS_PER_OPERATION = Number(process.env.SVC_FUZZ_RUNS ?? 12);
const SEED = Number(process.env.SVC_FUZZ_SEED ?? 20240611);
/** Bounded work, but thousands of requests on a machine that may be busy: time is not what is tested. */
const FUZZ_TIMEOUT_MS = 300_000;
/** The two refusal properties send up to 1 MB per request: fewer runs per route, every route still covered. */
const REFUSAL_RUNS_PER_OPERATION = Math.max(3, Math.ceil(RUNS_PER_OPERATION / 3));

interface Operation {
  method: string;
  path: string;
  pathParams: string[];
  queryParams: string[];
  bodyProps: string[];
}

/** Routes that speak JSON-RPC (MCP's Streamable HTTP): their transport-level refusals are JSON-RPC errors. */
const JSON_RPC_ROUTES = new Set(['/api/v1/mcp']);
/** Pages for people, answered with an HTML page whatever the status (install pages, a tester's unsubscribe page). */
const HTML_PAGES = new Set(['/install/{token}', '/install/latest/{token}', '/unsubscribe/{token}']);

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
    hostileString.filter((s) => s.length < 2000).map((s) => encodeHostile(s) || '%20'),
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
    .map(([k, v]) => `${encodeKey(k)}=${v === '%ZZ' || v === '%' ? v : encodeHostile(v)}`);
  return fc.array(pair, { maxLength: 5 }).map((pairs) => (pairs.length ? `?${pairs.join('&')}` : ''));
}

function encodeKey(key: string): string {
  return encodeHostile(key).replace(/%5B/g, '[').replace(/%5D/g, ']');
}

/**
 * encodeURIComponent, except that a lone surrogate (which it refuses with "URI malformed") is sent
 * as the three bytes a careless encoder writes for it (WTF-8, e.g. %ED%A0%80): invalid UTF-8.
 */
function encodeHostile(value: string): string {
  return value.replace(/\p{Cs}|[^\p{Cs}]+/gu, (part) => {
    if (!/\p{Cs}/u.test(part)) return encodeURIComponent(part);
    const c = part.charCodeAt(0);
    return [0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join('');
  });
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

/**
 * The answer to one request, or the breach when there is none: a hang past the timeout, a reset or a
 * closed socket is a breach too (a fuzz that swallowed those would never see the worst failures).
 */
async function answerOrBreach(url: string, raw: RawRequest, what: string): Promise<RawResponse | string> {
  try {
    return await send(url, raw);
  } catch (err) {
    return `${what} → no answer: ${(err as Error).message}`;
  }
}

/**
 * Runs a property whose failures are recorded in `breaches` (so all are reported together); a
 * failure it did not record itself (an exception in the property) is recorded here, never dropped.
 */
async function checkAll<T>(breaches: string[], what: string, property: fc.IAsyncProperty<T>, params: fc.Parameters<T>): Promise<void> {
  const before = breaches.length;
  await fc.assert(property, params).catch((err: Error) => {
    if (breaches.length === before) breaches.push(`${what}: the property failed without a recorded breach: ${err.message.split('\n')[0]}`);
  });
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
      await checkAll(
        breaches,
        `${op.method} ${op.path}`,
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
          const what = `[${r.identity}] ${op.method} ${raw.path.slice(0, 200)} body=${String(r.body).slice(0, 120)} type=${r.type}`;
          const res = await answerOrBreach(relay.url, raw, what);
          if (typeof res !== 'string') statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          const breach = typeof res === 'string' ? res : contractBreach(res, what, JSON_RPC_ROUTES.has(op.path) ? 'json-rpc' : HTML_PAGES.has(op.path) ? 'html-page' : 'relay');
          if (breach) breaches.push(breach);
          return breach === null;
        }),
        { seed: SEED + index, numRuns: RUNS_PER_OPERATION, endOnFailure: true },
      );
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
  }, FUZZ_TIMEOUT_MS);

  /** Every operation with its path filled in (ids that may or may not exist: the answer must not depend on it). */
  const everyRoute = async () => {
    const doc = (await ctx.relay.http().get('/api/v1/openapi.json').expect(200)).body;
    const ops = operationsOf(doc);
    expect(ops.length).toBeGreaterThan(40);
    return ops.map((op) => ({ ...op, concrete: op.path.replace(/\{[^}]+\}/g, '1') }));
  };

  const identitiesFor = async () => {
    const admin = await ctx.members.admin();
    return {
      cookie: { cookie: admin.cookie },
      pat: { authorization: `Bearer ${await ctx.members.pat(admin, 'view,builds:write')}` },
      anonymous: {},
    } as Record<string, Record<string, string>>;
  };

  /** Sends a JSON body to every route as every identity; the answer must be exactly 400 `{ error: expected }`. */
  const expectRefusalEverywhere = async <T>(
    name: string,
    bodies: (op: Operation) => fc.Arbitrary<T>,
    render: (body: T) => { text: string; error: string },
    example?: (op: Operation) => T,
  ) => {
    const routes = await everyRoute();
    const identities = await identitiesFor();
    const wrong: string[] = [];
    for (const [index, op] of routes.entries()) {
      const sample = fc.record({ identity: fc.constantFrom(...Object.keys(identities)), body: bodies(op) });
      await checkAll(
        wrong,
        `${name} ${op.method} ${op.path}`,
        fc.asyncProperty(sample, async ({ identity, body }) => {
          if (identity === 'cookie' && SESSION_ENDING.has(`${op.method} ${op.path}`)) return true;
          const { text, error } = render(body);
          const what = `${name} [${identity}] ${op.method} ${op.concrete} body=${text.slice(0, 80)}`;
          const raw: RawRequest = {
            method: op.method,
            path: op.concrete,
            headers: { ...identities[identity], 'content-type': 'application/json' },
            body: text,
          };
          const res = await answerOrBreach(ctx.relay.url, raw, what);
          if (typeof res === 'string') {
            wrong.push(res);
            return false;
          }
          const answer = `${res.status} ${res.text}`;
          if (answer !== `400 ${JSON.stringify({ error })}`) {
            wrong.push(`${what} → ${answer.slice(0, 200)} (expected 400 ${error})`);
            return false;
          }
          return true;
        }),
        {
          seed: SEED + index,
          numRuns: REFUSAL_RUNS_PER_OPERATION,
          endOnFailure: true,
          examples: example ? [[{ identity: 'anonymous', body: example(op) }]] : [],
        },
      );
    }
    expect(wrong).toEqual([]);
  };

  it('answers a deeply nested JSON body (up to 50,000 levels) on every route with a 400 naming the limit, as every identity', async () => {
    const depth = fc.oneof(fc.constant(50_000), fc.constant(MAX_JSON_DEPTH + 1), fc.integer({ min: MAX_JSON_DEPTH + 1, max: 60_000 }));
    const shape = fc.constantFrom('array', 'object', 'mixed');
    const started = Date.now();
    await expectRefusalEverywhere(
      'nesting',
      (op) => fc.record({ depth, shape, key: fc.constantFrom(...op.bodyProps, 'extra') }),
      ({ depth: levels, shape: kind, key }) => {
        const open = { array: '[', object: `{${JSON.stringify(key)}:`, mixed: `{${JSON.stringify(key)}:[` }[kind];
        const close = { array: ']', object: '}', mixed: ']}' }[kind];
        // under the 1 MB JSON limit (past it the answer is a fair 413, not what this property is about)
        const repeat = Math.min(kind === 'mixed' ? Math.ceil(levels / 2) : levels, Math.floor(1_000_000 / (open.length + close.length + 1)));
        return { text: `${open.repeat(repeat)}1${close.repeat(repeat)}`, error: TOO_DEEP_MESSAGE };
      },
      () => ({ depth: 50_000, shape: 'array' as const, key: 'extra' }), // the reported body, on every route
    );
    if (process.env.SVC_FUZZ_REPORT) console.log(`nesting: ${Date.now() - started} ms`);
  }, FUZZ_TIMEOUT_MS);

  it('answers a lone UTF-16 surrogate in any string field on every route with a 400 naming the field, as every identity', async () => {
    const surrogate = fc.oneof(fc.integer({ min: 0xd800, max: 0xdbff }), fc.integer({ min: 0xdc00, max: 0xdfff })).map((c) => String.fromCharCode(c));
    const text = fc.tuple(fc.string({ maxLength: 6 }), surrogate, fc.constantFrom('', 'x', '@example.com', ' ')).map(([a, b, c]) => a + b + c);
    const place = fc.constantFrom('value', 'in-array', 'in-object', 'key');
    await expectRefusalEverywhere(
      'surrogate',
      (op) => fc.record({ text, place, key: fc.constantFrom(...op.bodyProps, 'extra') }),
      ({ text: value, place: where, key }) => {
        const suffix = ' is not valid Unicode text (a lone UTF-16 surrogate)';
        // JSON.stringify writes a lone surrogate as a \uXXXX escape: the body itself is valid UTF-8
        if (where === 'value') return { text: JSON.stringify({ [key]: value }), error: key + suffix };
        if (where === 'in-array') return { text: JSON.stringify({ [key]: ['ok', value] }), error: `${key}[1]${suffix}` };
        if (where === 'in-object') return { text: JSON.stringify({ [key]: { inner: value } }), error: `${key}.inner${suffix}` };
        return { text: JSON.stringify({ [key]: { [value]: 1 } }), error: `A field name in ${key}${suffix}` };
      },
    );
  }, FUZZ_TIMEOUT_MS);

  it('leaves no prototype pollution behind in the relay process', () => {
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });
});

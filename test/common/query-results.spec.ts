import type { ArgumentMetadata } from '@nestjs/common';
import { randomInt } from 'node:crypto';
import { parse } from 'node:querystring';
import { ListBuildsQuery } from '../../src/builds/dto/list-builds.query';
import { UploadRecordingQuery } from '../../src/recordings/dto/upload-recording.query';
import { HttpError } from '../../src/common/errors/http-error';
import { MAX_REMEMBERED_QUERIES } from '../../src/common/validation/query-results';
import { createValidationPipe } from '../../src/common/validation/validation.pipe';

const KEYS = ['page', 'limit', 'q', 'platform', 'status', 'app_id', 'sort', 'dir', 'other', 'sessionId', 'buildId', '__proto__', 'constructor'];
const VALUES = [
  '', '0', '1', '20', '100', '101', '-1', '1e3', '0x10', ' 7 ', '007', '1.5', '2147483647', '2147483648', '99999999999999999999',
  '1000000000', '1000000001', 'ios', 'android', 'IOS', 'Done', 'Backlog', 'In%20Progress', 'Rejected', 'done', 'uploaded_at',
  'version_name', 'status_label', 'name', 'asc', 'desc', 'ASC', '1.2', '%25', '%ED%A0%80', '%F0%9F%99%82', 'x'.repeat(201), 'true',
];

/** A random query string as a client might send it: repeated keys (arrays), odd numbers, bad enums, lone surrogates. */
function randomQuery(): string {
  return Array.from({ length: randomInt(0, 5) }, () => {
    const key = KEYS[randomInt(KEYS.length)];
    return randomInt(12) ? `${key}=${VALUES[randomInt(VALUES.length)]}` : key;
  }).join('&');
}

type Outcome = { dto: object } | { status: number; message: unknown } | { other: unknown };

async function outcome(run: () => Promise<unknown>): Promise<Outcome> {
  try {
    return { dto: (await run()) as object };
  } catch (err) {
    return err instanceof HttpError ? { status: err.getStatus(), message: err.getResponse() } : { other: err };
  }
}

/** The same DTO: class, own fields in the same order with the same values (undefined ones included). */
function expectSame(remembered: Outcome, fresh: Outcome, query: string): void {
  if ('dto' in remembered && 'dto' in fresh) {
    expect([query, Object.getPrototypeOf(remembered.dto) === Object.getPrototypeOf(fresh.dto)]).toEqual([query, true]);
    expect([query, Object.entries(remembered.dto)]).toStrictEqual([query, Object.entries(fresh.dto)]);
  } else {
    expect([query, remembered]).toStrictEqual([query, fresh]);
  }
}

/** What the pipe keeps per DTO class (QueryResults.byClass), read for the bounds and the opt-in. */
const remembered = (pipe: unknown) => (pipe as { queries: { byClass: Map<unknown, Map<string, unknown>> } }).queries.byClass;

describe('the validation pipe remembers whole query strings', () => {
  const cases: [string, ArgumentMetadata][] = [
    ['ListBuildsQuery', { type: 'query', metatype: ListBuildsQuery }],
    ['UploadRecordingQuery', { type: 'query', metatype: UploadRecordingQuery }],
  ];

  it.each(cases)('gives %s the DTO or the 400 a pipe that never saw the query gives, asked once or again', async (_name, metadata) => {
    const pipe = createValidationPipe();
    const queries = Array.from({ length: 3000 }, randomQuery);
    // Asked twice each (the second from memory while it is remembered), and the first 500 again
    // after more than MAX_REMEMBERED_QUERIES others pushed them out.
    for (const query of [...queries, ...queries.slice(0, 500)]) {
      for (let ask = 0; ask < 2; ask++) {
        const remembered = await outcome(() => pipe.transform(parse(query), metadata));
        const fresh = await outcome(() => createValidationPipe().transform(parse(query), metadata));
        expectSame(remembered, fresh, query);
      }
    }
  });

  it('hands a query bound to no DTO class on as it came, every time', async () => {
    const pipe = createValidationPipe();
    for (let i = 0; i < 2; i++) {
      const query = { ...parse('page=2&x=1') };
      expect(await pipe.transform(query, { type: 'query', metatype: Object })).toBe(query);
    }
  });

  it('hands out a new DTO each time, so a handler changing one changes no later request', async () => {
    const pipe = createValidationPipe();
    const metadata: ArgumentMetadata = { type: 'query', metatype: ListBuildsQuery };
    const first = (await pipe.transform(parse('page=2&status=Done'), metadata)) as ListBuildsQuery;
    first.page = 7;
    const second = (await pipe.transform(parse('page=2&status=Done'), metadata)) as ListBuildsQuery;
    expect(second).not.toBe(first);
    expect(second).toBeInstanceOf(ListBuildsQuery);
    expect({ ...second }).toMatchObject({ page: 2, status: 'Done' });
  });

  it('refuses again with the same message, as a new error', async () => {
    const pipe = createValidationPipe();
    const metadata: ArgumentMetadata = { type: 'query', metatype: ListBuildsQuery };
    const errors: unknown[] = [];
    // A remembered refusal is thrown at once, a fresh one as a rejection: Nest's pipes consumer takes either.
    for (let i = 0; i < 2; i++) {
      try {
        await pipe.transform(parse('limit=0'), metadata);
      } catch (err) {
        errors.push(err);
      }
    }
    expect(errors.map((err) => (err as HttpError).getResponse())).toEqual(['limit must be an integer from 1 to 100', 'limit must be an integer from 1 to 100']);
    expect(errors[1]).not.toBe(errors[0]);
  });

  it(`keeps at most ${MAX_REMEMBERED_QUERIES} query strings per DTO, however many distinct ones arrive`, async () => {
    const pipe = createValidationPipe();
    const metadata: ArgumentMetadata = { type: 'query', metatype: ListBuildsQuery };
    for (let page = 0; page < MAX_REMEMBERED_QUERIES * 4; page++) await pipe.transform(parse(`page=${page}`), metadata);
    const kept = remembered(pipe).get(ListBuildsQuery)!;
    expect(kept.size).toBe(MAX_REMEMBERED_QUERIES);
    expect(kept.has(JSON.stringify({ page: String(MAX_REMEMBERED_QUERIES * 4 - 1) }))).toBe(true);
    expect(kept.has(JSON.stringify({ page: '0' }))).toBe(false);
  });

  it('remembers only DTOs marked @RememberQueryResults(): ListBuildsQuery, not UploadRecordingQuery', async () => {
    const pipe = createValidationPipe();
    for (const metatype of [ListBuildsQuery, UploadRecordingQuery]) {
      for (const query of ['', 'page=2', 'limit=0']) await pipe.transform(parse(query), { type: 'query', metatype }).catch(() => undefined);
    }
    expect([...remembered(pipe).keys()]).toEqual([ListBuildsQuery]);
    expect(remembered(pipe).get(ListBuildsQuery)!.size).toBe(3);
  });
});

import fc from 'fast-check';
import { buildListJson, toBuildResponse } from './builds.mapper';
import type { ListedBuild } from './builds.repository';

const text = fc.string({ unit: 'binary', maxLength: 12 });
const nullableText = fc.option(text, { nil: null });
const time = fc.date({ min: new Date(-1e14), max: new Date(3e14), noInvalidDate: true });
const listed: fc.Arbitrary<ListedBuild> = fc.record({
  build: fc.record({
    id: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
    appId: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
    name: text,
    versionName: nullableText,
    buildNumber: nullableText,
    versionLabel: nullableText,
    statusLabel: fc.constantFrom(null, 'Backlog', 'In Progress', 'Done', 'Rejected' as const),
    platform: fc.constantFrom('ios', 'android' as const),
    bundleId: text,
    uploadedAt: time,
    completedAt: fc.option(time, { nil: null }),
    deleteAfter: fc.option(time, { nil: null }),
  }),
  uploader: fc.option(
    fc.record({ id: fc.option(fc.integer({ min: 1, max: 2 ** 31 - 1 }), { nil: null }), displayName: nullableText, email: text.map((t) => `${t}@example.com`) }),
    { nil: null },
  ),
  hasIcon: fc.boolean(),
  // As stored: JSON.stringify of the flags, or no row.
  flags: fc.option(
    fc.array(fc.record({ kind: fc.constant('new_permission'), reason: text, subject: fc.option(text, { nil: null }), watched: fc.boolean() }), { minLength: 1, maxLength: 3 }).map((f) => JSON.stringify(f)),
    { nil: null },
  ),
});

describe('buildListJson', () => {
  it('writes exactly what JSON.stringify writes of the mapped page (field order, escapes, nulls, times)', () => {
    fc.assert(
      fc.property(fc.array(listed, { maxLength: 5 }), fc.nat(), (items, total) => {
        expect(buildListJson(items, total)).toBe(JSON.stringify({ items: items.map(toBuildResponse), total }));
      }),
      { numRuns: 3000 },
    );
  });

  it('escapes what JSON must: quotes, backslashes, control characters, lone surrogates', () => {
    const [item] = fc.sample(listed, { numRuns: 1, seed: 1 });
    const odd = { ...item, build: { ...item.build, name: 'a"b\\c\n\u0001\u2028\ud800', versionName: '</script>' } };
    expect(buildListJson([odd], 1)).toBe(JSON.stringify({ items: [toBuildResponse(odd)], total: 1 }));
    expect(buildListJson([], 0)).toBe('{"items":[],"total":0}');
  });
});

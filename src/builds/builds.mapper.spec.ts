import { DECORATORS } from '@nestjs/swagger';
import fc from 'fast-check';
import { Build, toBuildResponse } from './builds.mapper';
import type { ListedBuild } from './build-page';

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
  provenance: fc.option(
    fc.record({
      buildId: fc.integer({ min: 1 }),
      commit: nullableText,
      branch: nullableText,
      repository: nullableText,
      pullRequest: fc.option(fc.integer({ min: 1 }), { nil: null }),
      ciUrl: nullableText,
      changelog: nullableText,
    }),
    { nil: null },
  ),
});

/** Build's properties as the OpenAPI document declares them, in order (every one has an @ApiProperty). */
const openApiFields = (Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES_ARRAY, Build.prototype) as string[]).map((key) => key.replace(/^:/, ''));

describe('toBuildResponse', () => {
  // GET /builds is JSON.stringify of these objects, so their key order is the wire's order.
  it("writes the OpenAPI Build's properties, every one and in its order, whatever is null", () => {
    expect(openApiFields).toHaveLength(17);
    expect(openApiFields[openApiFields.length - 1]).toBe('provenance');
    fc.assert(
      fc.property(listed, (item) => {
        expect(Object.keys(toBuildResponse(item))).toEqual(openApiFields);
      }),
      { numRuns: 500 },
    );
  });

  it('maps the uploader and the icon, null when there is none', () => {
    const [item] = fc.sample(listed, { numRuns: 1, seed: 1 });
    const build = { ...item.build, id: 12 };
    expect(toBuildResponse({ build, uploader: { id: 3, displayName: 'Ann', email: 'a@example.com' }, hasIcon: true } as ListedBuild)).toMatchObject({
      uploaded_by: 'Ann',
      uploaded_by_id: 3,
      icon_url: '/api/v1/builds/12/icon',
    });
    expect(toBuildResponse({ build, uploader: null, hasIcon: false, flags: null, provenance: null })).toMatchObject({
      uploaded_by: null,
      uploaded_by_id: null,
      icon_url: null,
      flags: [],
      provenance: null,
    });
  });
});

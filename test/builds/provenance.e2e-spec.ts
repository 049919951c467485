import { readFileSync } from 'node:fs';
import { attachBuild, fixture } from '../support/build-fixtures';
import { useTestRelay } from '../support/use-relay';

const SHA = '9fceb02d0ae598e95dc970b74767f19372d61af8';
const SHA256 = 'a'.repeat(64);
const COLLECTION = '/api/v1/uploads/builds';
const metadataHeader = (fields: Record<string, string>) =>
  Object.entries(fields)
    .map(([key, value]) => `${key} ${Buffer.from(value, 'utf8').toString('base64')}`)
    .join(',');

/**
 * Build provenance (issue 25, docs/builds.md "Provenance"): commit, branch, repository, pull
 * request, CI run and changelog given at upload (multipart or tus metadata) are validated, stored,
 * shown under `provenance` by GET /builds and GET /builds/:id (never in the upload's summary), and
 * filter the list by branch and commit.
 */
describe('build provenance', () => {
  const ctx = useTestRelay();
  let pat: string;
  const upload = (fields: Record<string, string>, name = 'string-label.apk') =>
    attachBuild(ctx.members.withPat(pat, 'post', '/api/v1/builds'), name, fields);
  const get = async (id: number) => (await ctx.members.withPat(pat, 'get', `/api/v1/builds/${id}`).expect(200)).body;
  const list = async (query: string) => {
    const res = await ctx.members.withPat(pat, 'get', `/api/v1/builds${query}`).expect(200);
    return { ids: res.body.items.map((b: { id: number }) => b.id) as number[], total: res.body.total as number };
  };

  beforeAll(async () => {
    pat = await ctx.members.pat(await ctx.members.member('Developer'), 'builds:write');
  });

  it('stores what the multipart upload gave and shows it under provenance; the upload summary keeps the spec fields', async () => {
    const res = await upload({
      commit: SHA.toUpperCase(),
      branch: 'feature/login',
      repository: 'acme/app',
      pull_request: '42',
      ci_url: 'https://ci.example.com/runs/7',
      changelog: '  Login screen\nTry the forgotten-password link  ',
    }).expect(201);
    expect(Object.keys(res.body).sort()).toEqual(
      ['id', 'app_id', 'name', 'version_name', 'build_number', 'status_label', 'platform', 'bundle_id', 'uploaded_at'].sort(),
    );
    const expected = {
      commit: SHA,
      branch: 'feature/login',
      repository: 'acme/app',
      pull_request: 42,
      ci_url: 'https://ci.example.com/runs/7',
      changelog: 'Login screen\nTry the forgotten-password link',
    };
    expect((await get(res.body.id)).provenance).toEqual(expected);
    const page = await ctx.members.withPat(pat, 'get', '/api/v1/builds').expect(200);
    expect(page.body.items.find((b: { id: number }) => b.id === res.body.id).provenance).toEqual(expected);
  });

  it('is null for a build uploaded without any, and keeps absent fields null', async () => {
    const bare = await upload({}).expect(201);
    expect((await get(bare.body.id)).provenance).toBeNull();
    const some = await upload({ branch: 'main', commit: '' }).expect(201);
    expect((await get(some.body.id)).provenance).toEqual({ commit: null, branch: 'main', repository: null, pull_request: null, ci_url: null, changelog: null });
  });

  // The page's rows and their provenance come from one statement (a left join): each build on a
  // page has its own provenance or null, whatever its neighbours have, and GET /builds/:id agrees.
  it('shows each build of a page with its own provenance, or null, beside builds with the other', async () => {
    const given = { commit: SHA256, branch: 'page/mixed', repository: 'acme/app', pull_request: '9', ci_url: 'https://ci.example.com/runs/9', changelog: 'Both kinds' };
    const before = (await upload({}).expect(201)).body.id as number;
    const withIt = (await upload(given, 'xml-root.app.zip').expect(201)).body.id as number;
    const after = (await upload({}).expect(201)).body.id as number;
    const shown = { commit: SHA256, branch: 'page/mixed', repository: 'acme/app', pull_request: 9, ci_url: 'https://ci.example.com/runs/9', changelog: 'Both kinds' };
    const page = (await ctx.members.withPat(pat, 'get', '/api/v1/builds?limit=3').expect(200)).body.items as { id: number; provenance: unknown }[];
    expect(page.map(({ id, provenance }) => ({ id, provenance }))).toEqual([
      { id: after, provenance: null },
      { id: withIt, provenance: shown },
      { id: before, provenance: null },
    ]);
    for (const item of page) expect(await get(item.id)).toEqual(item);
  });

  it('accepts SHA-256 commit ids and GitLab group paths', async () => {
    const res = await upload({ commit: SHA256, repository: 'group/sub.group/my-app' }).expect(201);
    expect((await get(res.body.id)).provenance).toEqual(expect.objectContaining({ commit: SHA256, repository: 'group/sub.group/my-app' }));
  });

  it.each([
    [{ commit: 'abc1234' }, 'commit must be a full commit SHA (40 or 64 hexadecimal characters)'],
    [{ commit: `${SHA}0` }, 'commit must be a full commit SHA (40 or 64 hexadecimal characters)'],
    [{ commit: SHA.replace('9', 'g') }, 'commit must be a full commit SHA (40 or 64 hexadecimal characters)'],
    [{ repository: 'app' }, 'repository must be owner/name (GitLab: group/subgroup/name)'],
    [{ repository: 'acme/app?x=1' }, 'repository must be owner/name (GitLab: group/subgroup/name)'],
    [{ repository: '../../etc' }, 'repository must be owner/name (GitLab: group/subgroup/name)'],
    [{ repository: 'acme/..' }, 'repository must be owner/name (GitLab: group/subgroup/name)'],
    [{ pull_request: '0' }, 'pull_request must be a positive integer'],
    [{ pull_request: '4x' }, 'pull_request must be a positive integer'],
    [{ pull_request: '99999999999' }, 'pull_request must be at most 2147483647'],
    [{ ci_url: 'javascript:alert(1)' }, 'ci_url must be an http:// or https:// URL'],
    [{ ci_url: `https://ci.example.com/${'x'.repeat(2048)}` }, 'ci_url must be at most 2048 characters'],
    [{ branch: 'a\u0001b' }, 'branch must not contain control characters'],
    [{ branch: 'b'.repeat(256) }, 'branch must be at most 255 characters'],
    [{ changelog: 'c'.repeat(4001) }, 'changelog must be at most 4000 characters'],
  ])('refuses %j with 400 and stores nothing', async (fields, message) => {
    const before = await list('');
    const res = await upload(fields as Record<string, string>).expect(400);
    expect(res.body).toEqual({ error: message });
    expect((await list('')).total).toBe(before.total);
  });

  it('takes the same fields in tus metadata, with the same rules', async () => {
    const data = readFileSync(fixture('string-label.apk'));
    const start = (fields: Record<string, string>) =>
      ctx.members
        .withPat(pat, 'post', COLLECTION)
        .set('Tus-Resumable', '1.0.0')
        .set('Upload-Length', String(data.length))
        .set('Upload-Metadata', metadataHeader({ filename: 'string-label.apk', ...fields }));
    expect((await start({ commit: 'deadbeef' }).expect(400)).body).toEqual({ error: 'commit must be a full commit SHA (40 or 64 hexadecimal characters)' });
    const location = (await start({ commit: SHA, branch: 'tus-branch', pull_request: '7', changelog: 'Über-fix ✓' }).expect(201)).headers.location;
    const done = await ctx.members
      .withPat(pat, 'patch', location)
      .set('Tus-Resumable', '1.0.0')
      .set('Upload-Offset', '0')
      .set('Content-Type', 'application/offset+octet-stream')
      .send(data)
      .expect(201);
    expect(done.body.provenance).toBeUndefined();
    expect((await get(done.body.id)).provenance).toEqual({
      commit: SHA,
      branch: 'tus-branch',
      repository: null,
      pull_request: 7,
      ci_url: null,
      changelog: 'Über-fix ✓',
    });
  });

  it('filters the list by branch (exact) and commit (full or a prefix, any case), with exact totals', async () => {
    const other = 'f'.repeat(40);
    const a = (await upload({ branch: 'release/2.0', commit: other }).expect(201)).body.id;
    const b = (await upload({ branch: 'release/2.0' }, 'xml-root.app.zip').expect(201)).body.id;
    expect(await list('?branch=release/2.0')).toEqual({ ids: [b, a], total: 2 });
    expect(await list('?branch=release/2.0&platform=ios')).toEqual({ ids: [b], total: 1 });
    expect(await list('?branch=release')).toEqual({ ids: [], total: 0 });
    expect(await list(`?commit=${other}`)).toEqual({ ids: [a], total: 1 });
    expect(await list('?commit=FFFFFFF')).toEqual({ ids: [a], total: 1 });
    expect(await list('?commit=ffff&limit=1&page=1')).toEqual({ ids: [], total: 1 });
    const bySha = await list(`?commit=${SHA.slice(0, 8)}`);
    expect(bySha.total).toBe(2); // the multipart and the tus upload above
    const refused = await ctx.members.withPat(pat, 'get', '/api/v1/builds?commit=xyz').expect(400);
    expect(refused.body).toEqual({ error: 'commit must be 4 to 64 hexadecimal characters' });
  });
});

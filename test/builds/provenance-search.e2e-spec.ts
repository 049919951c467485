import { attachBuild } from '../support/build-fixtures';
import { useTestRelay } from '../support/use-relay';

const SHA_A = '1d3f5c7e9a0b2c4d6e8f0a1b2c3d4e5f60718293';
// Holds "2200" and "345" (build numbers of the fixtures) away from its start: a search for them must not find it.
const SHA_B = `beef2200${'e'.repeat(27)}34500`;

/**
 * Issue 40 item 1 (docs/builds.md "Provenance in the search"): `search` finds a build by its branch
 * (a substring, like every other field), its pull request (`#17` exactly; `17` as a substring, like
 * a build number) and its commit (a prefix of 7 to 64 hex characters, never a substring elsewhere in
 * the SHA); `pull_request=` filters the list. Every list keeps its exact total and page.
 */
describe('provenance in GET /builds search and filters', () => {
  const ctx = useTestRelay();
  const ids: Record<string, number> = {};
  const apps: Record<string, number> = {};
  let pat: string;

  beforeAll(async () => {
    pat = await ctx.members.pat(await ctx.members.member('Developer'), 'builds:write');
    // Oldest first. string-label.apk: Résumé Viewer 2.0.0-beta (7); xml-root.app.zip: Demo Display 3.4.5 (345).
    const plan: [string, string, Record<string, string>][] = [
      ['a', 'string-label.apk', { branch: 'feature/login', pull_request: '17', commit: SHA_A }],
      ['b', 'xml-root.app.zip', { branch: 'release/2.1', commit: SHA_B }],
      ['c', 'string-label.apk', { branch: 'main', pull_request: '170' }],
      ['d', 'string-label.apk', { label: 'fixes #17' }],
    ];
    for (const [key, file, fields] of plan) {
      ctx.relay.clock.advance(1000);
      const body = (await attachBuild(ctx.members.withPat(pat, 'post', '/api/v1/builds'), file, fields).expect(201)).body;
      ids[key] = body.id;
      apps[key] = body.app_id;
    }
  });

  const list = async (query: string) => {
    const res = await ctx.members.withPat(pat, 'get', `/api/v1/builds${query}`).expect(200);
    return { ids: res.body.items.map((b: { id: number }) => b.id) as number[], total: res.body.total as number };
  };
  const search = (term: string, rest = '') => list(`?search=${encodeURIComponent(term)}${rest}`);

  it('finds a build by its branch, as a case-insensitive substring', async () => {
    expect(await search('feature/login')).toEqual({ ids: [ids.a], total: 1 });
    expect(await search('LOGIN')).toEqual({ ids: [ids.a], total: 1 });
    expect(await search('release')).toEqual({ ids: [ids.b], total: 1 });
    expect(await search('release/2.1 demo')).toEqual({ ids: [ids.b], total: 1 });
    expect(await search('main')).toEqual({ ids: [ids.c], total: 1 });
    expect(await search('feature/login', '&platform=ios')).toEqual({ ids: [], total: 0 });
  });

  it('finds a build by its pull request: #17 exactly, 17 as a substring', async () => {
    expect(await search('#17')).toEqual({ ids: [ids.d, ids.a], total: 2 }); // d: its label says "#17"
    expect(await search('#170')).toEqual({ ids: [ids.c], total: 1 });
    expect(await search('#1')).toEqual({ ids: [ids.d], total: 1 }); // the label's "#17", no pull request 1
    expect(await search('170')).toEqual({ ids: [ids.c], total: 1 });
    expect(await search('feature #17')).toEqual({ ids: [ids.a], total: 1 });
  });

  it('finds a build by a prefix of its commit of 7 hex characters or more, any case', async () => {
    expect(await search(SHA_A.slice(0, 7))).toEqual({ ids: [ids.a], total: 1 });
    expect(await search(SHA_A.slice(0, 12).toUpperCase())).toEqual({ ids: [ids.a], total: 1 });
    expect(await search(SHA_A)).toEqual({ ids: [ids.a], total: 1 });
    expect(await search(`${SHA_B.slice(0, 9)} release`)).toEqual({ ids: [ids.b], total: 1 });
    // Not a prefix, too short, or one character too many: no commit matches.
    expect(await search(SHA_A.slice(1, 9))).toEqual({ ids: [], total: 0 });
    expect(await search(SHA_B.slice(0, 6))).toEqual({ ids: [], total: 0 });
    expect(await search(`${SHA_A}0`)).toEqual({ ids: [], total: 0 });
    // Short terms match the fields people read, never the inside of a SHA.
    expect(await search('2200')).toEqual({ ids: [], total: 0 });
    expect(await search('345')).toEqual({ ids: [ids.b], total: 1 }); // b's build number
    expect(await search('eee')).toEqual({ ids: [], total: 0 });
  });

  // Few matches: gathered from the search index; a page of one: the sort index walked, each build tested.
  it.each([['feature/login'], ['#17'], [SHA_A.slice(0, 8)], ['string #17'], ['example']])('search=%s: a page at a time lists what one page lists', async (term) => {
    const whole = await search(term, '&limit=100');
    const walked: number[] = [];
    for (let page = 0; page <= whole.total; page++) {
      const one = await search(term, `&limit=1&page=${page}`);
      expect(one.total).toBe(whole.total);
      walked.push(...one.ids);
    }
    expect(walked).toEqual(whole.ids);
    expect(whole.total).toBeGreaterThan(0);
  });

  it('keeps the provenance in the search text when the app is renamed or the label changes', async () => {
    await ctx.members.as(await ctx.members.admin(), 'patch', `/api/v1/apps/${apps.b}`).send({ name: 'Renamed Display' }).expect(200);
    expect(await search('renamed release')).toEqual({ ids: [ids.b], total: 1 });
    expect(await search(SHA_B.slice(0, 7))).toEqual({ ids: [ids.b], total: 1 });
    await ctx.members.as(await ctx.members.admin(), 'patch', `/api/v1/builds/${ids.a}`).send({ version_label: 'QA pass' }).expect(200);
    expect(await search('qa feature/login #17')).toEqual({ ids: [ids.a], total: 1 });
  });

  it('forgets a deleted build', async () => {
    const e = (await attachBuild(ctx.members.withPat(pat, 'post', '/api/v1/builds'), 'literal-label.apk', { branch: 'feature/gone', commit: 'f'.repeat(40) }).expect(201)).body;
    expect(await search('feature/gone')).toEqual({ ids: [e.id], total: 1 });
    await ctx.members.as(await ctx.members.admin(), 'delete', `/api/v1/apps/${e.app_id}`).expect(200);
    expect(await search('feature/gone')).toEqual({ ids: [], total: 0 });
    expect(await search('fffffff')).toEqual({ ids: [], total: 0 });
  });

  it('filters the list by pull request, alone and with the other filters, with exact totals', async () => {
    expect(await list('?pull_request=17')).toEqual({ ids: [ids.a], total: 1 });
    expect(await list('?pull_request=170&branch=main')).toEqual({ ids: [ids.c], total: 1 });
    expect(await list('?pull_request=170&branch=feature/login')).toEqual({ ids: [], total: 0 });
    expect(await list('?pull_request=17&platform=ios')).toEqual({ ids: [], total: 0 });
    expect(await list(`?pull_request=17&commit=${SHA_A.slice(0, 7)}`)).toEqual({ ids: [ids.a], total: 1 });
    expect(await list('?pull_request=17&search=login')).toEqual({ ids: [ids.a], total: 1 });
    expect(await list('?pull_request=17&limit=1&page=1')).toEqual({ ids: [], total: 1 });
    expect(await list('?pull_request=18')).toEqual({ ids: [], total: 0 });
    expect(await list('?pull_request=17&sort=version_name&dir=asc')).toEqual({ ids: [ids.a], total: 1 });
  });

  it.each([
    ['pull_request=0', 'pull_request must be a positive integer'],
    ['pull_request=%2317', 'pull_request must be a positive integer'],
    ['pull_request=1.5', 'pull_request must be a positive integer'],
    ['pull_request=', 'pull_request must be a positive integer'],
    ['pull_request=99999999999', 'pull_request must be at most 2147483647'],
    ['pull_request=1&pull_request=2', 'pull_request must be a positive integer'],
  ])('refuses %s with 400', async (query, message) => {
    expect((await ctx.members.withPat(pat, 'get', `/api/v1/builds?${query}`).expect(400)).body).toEqual({ error: message });
  });
});

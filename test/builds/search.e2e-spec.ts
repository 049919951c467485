import { attachBuild } from '../support/build-fixtures';
import { useTestRelay } from '../support/use-relay';

/**
 * GET /builds?search= (beyond the spec, docs/builds.md "Search"): every whitespace-separated term
 * is a case-insensitive (ASCII) substring of the app's name, the build's name, bundle id, version,
 * build number or label; it combines with the spec's filters, sorts and pages like `q`, and keeps
 * up with labels changed by PATCH and apps renamed. Also `status=untriaged` (no status set).
 */
describe('GET /builds?search= and status=untriaged', () => {
  const ctx = useTestRelay();
  const ids: Record<string, number> = {};
  const apps: Record<string, number> = {};
  let pat: string;

  beforeAll(async () => {
    pat = await ctx.members.pat(await ctx.members.member('QA'), 'builds:write');
    // Oldest first; build numbers: a 42, b 7, c 345, d 501, e 2200.
    const plan: [string, string, Record<string, string>][] = [
      ['a', 'literal-label.apk', { status: 'Backlog', label: 'feature/Payments-100%' }],
      ['b', 'string-label.apk', { status: 'Done', label: "o'brien_fix" }],
      ['c', 'xml-root.app.zip', {}],
      ['d', 'binary-root.tar.gz', { label: 'release/x_y' }],
      ['e', 'xml-nested.tgz', { status: 'Done', label: 'feature/LOGIN' }],
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

  it('matches each field, case-insensitively, as a substring', async () => {
    expect(await search('tarred')).toEqual({ ids: [ids.d], total: 1 }); // name
    expect(await search('EXAMPLE.LIT')).toEqual({ ids: [ids.a], total: 1 }); // bundle id
    expect(await search('5.0')).toEqual({ ids: [ids.d], total: 1 }); // version name
    expect(await search('2200')).toEqual({ ids: [ids.e], total: 1 }); // build number
    expect(await search('42')).toEqual({ ids: [ids.a], total: 1 });
    expect(await search('login')).toEqual({ ids: [ids.e], total: 1 }); // label
    expect(await search('feature/')).toEqual({ ids: [ids.e, ids.a], total: 2 });
    expect(await search('nothing-like-this')).toEqual({ ids: [], total: 0 });
  });

  it('needs every term, each within one field', async () => {
    expect(await search('feature payments')).toEqual({ ids: [ids.a], total: 1 });
    expect(await search('  feature   login ')).toEqual({ ids: [ids.e], total: 1 });
    // "3.4.5" then "345" are adjacent fields of c: a term never spans two.
    expect(await search('3.4.5345')).toEqual({ ids: [], total: 0 });
  });

  it('takes %, _, quotes, backslashes and glob characters literally', async () => {
    expect(await search('%')).toEqual({ ids: [ids.a], total: 1 });
    expect(await search('100%')).toEqual({ ids: [ids.a], total: 1 });
    expect(await search('_')).toEqual({ ids: [ids.d, ids.b], total: 2 });
    expect(await search('x_y')).toEqual({ ids: [ids.d], total: 1 });
    expect(await search('x%y')).toEqual({ ids: [], total: 0 });
    expect(await search("o'brien")).toEqual({ ids: [ids.b], total: 1 });
    for (const term of ['*', '?', '[a]', '\\', 'o_b', 're*e']) expect(await search(term)).toEqual({ ids: [], total: 0 });
  });

  it('combines with the filters, q, sorts and pages, with exact totals', async () => {
    expect(await search('feature', '&status=Done')).toEqual({ ids: [ids.e], total: 1 });
    expect(await search('feature', `&app_id=${apps.a}`)).toEqual({ ids: [ids.a], total: 1 });
    expect(await search('example', '&platform=ios')).toEqual({ ids: [ids.e, ids.d, ids.c], total: 3 });
    expect(await search('example', '&q=2')).toEqual({ ids: [ids.e, ids.b, ids.a], total: 3 });
    expect(await search('example', '&sort=version_name&dir=asc')).toEqual({ ids: [ids.a, ids.b, ids.e, ids.c, ids.d], total: 5 });
    expect(await search('example', '&sort=status_label&dir=desc')).toEqual({ ids: [ids.e, ids.b, ids.a, ids.d, ids.c], total: 5 });
    expect(await search('example', '&limit=2&page=1')).toEqual({ ids: [ids.c, ids.b], total: 5 });
    expect(await search('example', '&limit=2&page=9')).toEqual({ ids: [], total: 5 });
    expect(await search('   ')).toEqual({ ids: [ids.e, ids.d, ids.c, ids.b, ids.a], total: 5 });
  });

  // A term most builds match, a page of one: matches² > page end × builds, so the page walks the sort
  // index and tests each build (docs/decisions.md#issue-24-search); the whole list in one page gathers
  // the matches from the search index and sorts them. Both ways give the same builds and totals.
  it.each([
    ['example', ''],
    ['.', '&sort=version_name&dir=asc'],
    ['e', '&sort=status_label&dir=desc'],
    ['com.example', '&status=Done'],
    ['example 1', '&q=1'],
    ['EXAMPLE', '&platform=ios&dir=asc'],
    ['e x', '&status=untriaged'],
  ])('search=%s%s: a page at a time (the walk) lists what one page (the gathered matches) lists', async (term, rest) => {
    const whole = await search(term, `${rest}&limit=100`);
    const walked: number[] = [];
    for (let page = 0; page < whole.total + 1; page++) {
      const one = await search(term, `${rest}&limit=1&page=${page}`);
      expect(one.total).toBe(whole.total);
      walked.push(...one.ids);
    }
    expect(walked).toEqual(whole.ids);
    expect(whole.total).toBeGreaterThan(1);
  });

  it('follows label changes and app renames', async () => {
    const qa = await ctx.members.member('QA');
    await ctx.members.as(qa, 'patch', `/api/v1/builds/${ids.b}`).send({ version_label: 'hotfix/Zebra' }).expect(200);
    expect(await search('zebra')).toEqual({ ids: [ids.b], total: 1 });
    expect(await search('brien')).toEqual({ ids: [], total: 0 });
    await ctx.members.as(qa, 'patch', `/api/v1/apps/${apps.c}`).send({ name: 'Checkout Wallet' }).expect(200);
    expect(await search('wallet')).toEqual({ ids: [ids.c], total: 1 });
    expect(await search('demo display')).toEqual({ ids: [ids.c], total: 1 }); // the build's own name stays
  });

  it('status=untriaged lists builds without a status, with every other filter', async () => {
    expect(await list('?status=untriaged')).toEqual({ ids: [ids.d, ids.c], total: 2 });
    expect(await list('?status=untriaged&sort=version_name&dir=desc')).toEqual({ ids: [ids.d, ids.c], total: 2 });
    expect(await list('?status=untriaged&limit=1&page=1')).toEqual({ ids: [ids.c], total: 2 });
    expect(await list('?status=untriaged&limit=1&page=3')).toEqual({ ids: [], total: 2 });
    expect(await list(`?status=untriaged&app_id=${apps.d}`)).toEqual({ ids: [ids.d], total: 1 });
    expect(await list('?status=untriaged&platform=android')).toEqual({ ids: [], total: 0 });
    expect(await search('tarred', '&status=untriaged')).toEqual({ ids: [ids.d], total: 1 });
    const qa = await ctx.members.member('QA');
    await ctx.members.as(qa, 'patch', `/api/v1/builds/${ids.c}`).send({ status_label: 'Done' }).expect(200);
    expect(await list('?status=untriaged')).toEqual({ ids: [ids.d], total: 1 });
    await ctx.members.as(qa, 'patch', `/api/v1/builds/${ids.c}`).send({ status_label: null }).expect(200);
  });

  it.each([
    [`search=${'x'.repeat(101)}`, 'search must be at most 100 characters'],
    ['search=a&search=b', 'search must be a string'],
    ['status=Untriaged', 'status must be one of Backlog, In Progress, Done, Rejected, untriaged'],
    ['status=', 'status must be one of Backlog, In Progress, Done, Rejected, untriaged'],
  ])('refuses %s with 400', async (query, message) => {
    expect((await ctx.members.withPat(pat, 'get', `/api/v1/builds?${query}`).expect(400)).body).toEqual({ error: message });
  });

  it('keeps a 100-character search after trimming the spaces around it', async () => {
    expect(await search(`  ${'x'.repeat(100)}  `)).toEqual({ ids: [], total: 0 });
  });
});

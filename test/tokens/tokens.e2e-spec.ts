import { DataSource } from 'typeorm';
import { UsersService } from '../../src/users/users.service';
import { DAY_MS, MINUTE_MS } from '../../src/common/time';
import { TestMember } from '../support/factory';
import { PROBE, ProbeModule } from '../support/probe.module';
import { useTestRelay } from '../support/use-relay';

const TOKENS = '/api/v1/tokens';
const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('personal access tokens', () => {
  const ctx = useTestRelay({}, { imports: [ProbeModule] });
  let admin: TestMember;
  beforeAll(async () => {
    admin = await ctx.members.admin();
  });

  const create = (member: TestMember, body: object) => ctx.members.as(member, 'post', TOKENS).send(body);
  const list = async (member: TestMember) => (await ctx.members.as(member, 'get', TOKENS).expect(200)).body;

  describe('POST /tokens', () => {
    it('201 { token: svc_pat_… } with ≥ 32 random bytes; only its hash is stored', async () => {
      const res = await create(admin, { name: 'CI' }).expect(201);
      expect(Object.keys(res.body)).toEqual(['token']);
      expect(res.body.token).toMatch(/^svc_pat_[A-Za-z0-9_-]{43,}$/);
      const other = (await create(admin, { name: 'CI 2' }).expect(201)).body.token;
      expect(other).not.toBe(res.body.token);

      const rows = await ctx.relay.app.get(DataSource).query('SELECT * FROM personal_access_tokens');
      const stored = JSON.stringify(rows);
      expect(stored).not.toContain(res.body.token);
      expect(stored).not.toContain(res.body.token.slice('svc_pat_'.length));
    });

    it('list items never show the value; defaults: scope view,builds:write, no expiry, last_used_at = created_at', async () => {
      const member = await ctx.members.member('QA');
      const { token } = (await create(member, { name: '  nightly  ' }).expect(201)).body;
      const items = await list(member);
      expect(items).toEqual([
        {
          id: expect.any(Number),
          name: 'nightly',
          scope: 'view,builds:write',
          last_used_at: expect.stringMatching(ISO_MS),
          expires_at: null,
          created_at: expect.stringMatching(ISO_MS),
        },
      ]);
      expect(items[0].last_used_at).toBe(items[0].created_at);
      expect(JSON.stringify(items)).not.toContain(token.slice(8));
    });

    it.each([
      ['"3" (numeric string)', '3', 3 * DAY_MS],
      ['1.5', 1.5, 1.5 * DAY_MS],
      ['365', 365, 365 * DAY_MS],
      ['3650 (no upper limit in the API)', 3650, 3650 * DAY_MS],
    ])('expires_in_days %s is accepted', async (_label, value, ms) => {
      const member = await ctx.members.member('QA');
      await create(member, { name: 'x', expires_in_days: value }).expect(201);
      const [item] = await list(member);
      expect(Date.parse(item.expires_at) - Date.parse(item.created_at)).toBe(ms);
    });

    it.each([
      ['0', 0],
      ['"0"', '0'],
      ['null', null],
    ])('expires_in_days %s means no expiry', async (_label, value) => {
      const member = await ctx.members.member('QA');
      await create(member, { name: 'x', expires_in_days: value }).expect(201);
      expect((await list(member))[0].expires_at).toBeNull();
    });

    it.each([
      ['-1', -1],
      ['"-1"', '-1'],
      ['""', ''],
      ['"abc"', 'abc'],
      ['"3 days"', '3 days'],
      ['1e308', 1e308],
      ['9999999999', 9999999999],
      ['"1e308"', '1e308'],
      ['true', true],
      ['{}', {}],
      ['[3]', [3]],
    ])('expires_in_days %s is 400 naming the field', async (_label, value) => {
      const member = await ctx.members.member('QA');
      const res = await create(member, { name: 'x', expires_in_days: value });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/^expires_in_days /);
      expect(await list(member)).toEqual([]);
    });

    it.each([
      ['view', 'view'],
      ['builds:write', 'builds:write'],
      [' view , builds:write ', 'view,builds:write'],
      ['view,view (duplicates collapse)', 'view'],
    ])('scope %s is stored as %s', async (input, stored) => {
      const member = await ctx.members.member('Developer');
      await create(member, { name: 'x', scope: input.replace(/ \(.*\)$/, '') }).expect(201);
      expect((await list(member))[0].scope).toBe(stored);
    });

    it.each([
      ['an unknown scope', 'admin'],
      ['one unknown among known', 'view,deploy'],
      ['an empty string', ''],
      ['only commas', ',,'],
      ['a number', 5],
      ['an array', ['view']],
    ])('scope as %s is 400', async (_label, scope) => {
      const res = await create(admin, { name: 'x', scope });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/scope/);
    });

    it('only an Admin may issue the agent scope; others get 403 and nothing is created', async () => {
      const res = await create(admin, { name: 'agent box', scope: 'agent' }).expect(201);
      expect(res.body.token).toMatch(/^svc_pat_/);
      for (const role of ['Developer', 'QA', 'Viewer'] as const) {
        const member = await ctx.members.member(role);
        const refused = await create(member, { name: 'agent', scope: 'view,agent' });
        expect(refused.status).toBe(403);
        expect(refused.body).toEqual({ error: 'Only an Admin can issue the agent scope' });
        expect(await list(member)).toEqual([]);
      }
    });

    it('the agent rule follows the current role', async () => {
      const member = await ctx.members.member('Developer');
      await create(member, { name: 'a', scope: 'agent' }).expect(403);
      await ctx.relay.app.get(UsersService).update(member.id, { role: 'Admin' });
      await create(member, { name: 'a', scope: 'agent' }).expect(201);
    });

    it.each([
      ['no name', {}, 'name is required'],
      ['blank name', { name: '   ' }, 'name is required'],
      ['numeric name', { name: 7 }, 'name is required'],
      ['201-char name', { name: 'n'.repeat(201) }, 'name must be at most 200 characters'],
    ])('400 for %s', async (_label, body, error) => {
      const res = await create(admin, body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error });
    });

    it('a Viewer may create tokens (for reading)', async () => {
      const viewer = await ctx.members.member('Viewer');
      await create(viewer, { name: 'read only', scope: 'view' }).expect(201);
    });

    it('a name the member already uses is numbered: "CI", "CI (2)", "CI (3)"; other members and freed names are not counted (issue 40)', async () => {
      const member = await ctx.members.member('Developer');
      for (let i = 0; i < 3; i++) await create(member, { name: 'CI' }).expect(201);
      await create(member, { name: ' CI ' }).expect(201);
      expect((await list(member)).map((t: { name: string }) => t.name)).toEqual(['CI', 'CI (2)', 'CI (3)', 'CI (4)']);

      const other = await ctx.members.member('Developer');
      await create(other, { name: 'CI' }).expect(201);
      expect((await list(other)).map((t: { name: string }) => t.name)).toEqual(['CI']);

      const second = (await list(member))[1];
      await ctx.members.as(member, 'delete', `${TOKENS}/${second.id}`).expect(204);
      await create(member, { name: 'CI' }).expect(201);
      expect((await list(member)).map((t: { name: string }) => t.name)).toEqual(['CI', 'CI (3)', 'CI (4)', 'CI (2)']);

      const long = 'x'.repeat(200);
      await create(member, { name: long }).expect(201);
      await create(member, { name: long }).expect(201);
      const names = (await list(member)).map((t: { name: string }) => t.name).slice(-2);
      expect(names).toEqual([long, `${'x'.repeat(196)} (2)`]);
    });
  });

  describe('using a PAT', () => {
    it('last_used_at: first use always, later at most once a minute', async () => {
      const member = await ctx.members.member('QA');
      const pat = await ctx.members.pat(member, 'view');
      const [before] = await list(member);

      ctx.relay.clock.advance(5_000);
      const firstUse = ctx.relay.clock.now().getTime();
      await ctx.members.withPat(pat, 'get', `${PROBE}/view`).expect(200);
      const firstAnswered = ctx.relay.clock.nowMs();
      const [afterFirst] = await list(member);
      // Stamped during the first use: between its request and its answer on the relay clock.
      expect(Date.parse(afterFirst.last_used_at)).toBeGreaterThanOrEqual(firstUse);
      expect(Date.parse(afterFirst.last_used_at)).toBeLessThanOrEqual(firstAnswered);
      expect(afterFirst.created_at).toBe(before.created_at);

      ctx.relay.clock.advance(30_000);
      await ctx.members.withPat(pat, 'get', `${PROBE}/view`).expect(200);
      expect((await list(member))[0].last_used_at).toBe(afterFirst.last_used_at);

      ctx.relay.clock.advance(MINUTE_MS);
      await ctx.members.withPat(pat, 'get', `${PROBE}/view`).expect(200);
      expect(Date.parse((await list(member))[0].last_used_at)).toBeGreaterThan(Date.parse(afterFirst.last_used_at));
    });

    it('expires exactly at expires_at (moved with the clock) → 401', async () => {
      const member = await ctx.members.member('QA');
      const pat = await ctx.members.pat(member, 'view', 1);
      await ctx.members.withPat(pat, 'get', `${PROBE}/view`).expect(200);
      ctx.relay.clock.advance(DAY_MS - 60_000);
      await ctx.members.withPat(pat, 'get', `${PROBE}/view`).expect(200);
      ctx.relay.clock.advance(60_000);
      const res = await ctx.members.withPat(pat, 'get', `${PROBE}/view`);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: 'Unauthorized' });
    });

    it('scheme is case-insensitive: "bearer" and "BEARER" are accepted', async () => {
      const member = await ctx.members.member('QA');
      const pat = await ctx.members.pat(member, 'view');
      for (const scheme of ['bearer', 'BEARER', 'Bearer']) {
        await ctx.relay.http().get(`${PROBE}/view`).set('Authorization', `${scheme} ${pat}`).expect(200);
      }
    });

    it('malformed or forged tokens are 401, never 500', async () => {
      const member = await ctx.members.member('QA');
      const pat: string = await ctx.members.pat(member, 'view');
      const flipped = pat.slice(0, -1) + (pat.endsWith('A') ? 'B' : 'A');
      const headers = [
        'Bearer svc_pat_',
        'Bearer ',
        'Bearer',
        `Bearer ${flipped}`,
        `Bearer ${pat}x`,
        `Bearer ${pat.slice(8)}`,
        `Bearer svc_pat_${'A'.repeat(10_000)}`,
        `Basic ${Buffer.from(`x:${pat}`).toString('base64')}`,
        `Token ${pat}`,
        `Bearer ${pat} extra`,
        'Bearer \u00ff\u00fe',
      ];
      for (const header of headers) {
        const res = await ctx.relay.http().get(`${PROBE}/view`).set('Authorization', header);
        expect({ header: header.slice(0, 40), status: res.status, body: res.body }).toEqual({
          header: header.slice(0, 40),
          status: 401,
          body: { error: 'Unauthorized' },
        });
      }
      // a token in the query string is not a credential
      await ctx.relay.http().get(`${PROBE}/view?access_token=${pat}`).expect(401);
    });
  });

  describe('DELETE /tokens/:id', () => {
    it('204 with no body; the next request with it is 401; the list no longer shows it', async () => {
      const member = await ctx.members.member('Developer');
      const pat = await ctx.members.pat(member, 'builds:write');
      const keep = await ctx.members.pat(member, 'builds:write');
      await ctx.members.withPat(pat, 'post', `${PROBE}/write`).expect(201);
      const [first] = await list(member);
      const res = await ctx.members.as(member, 'delete', `${TOKENS}/${first.id}`).expect(204);
      expect(res.text).toBe('');
      await ctx.members.withPat(pat, 'post', `${PROBE}/write`).expect(401);
      await ctx.members.withPat(keep, 'post', `${PROBE}/write`).expect(201);
      expect((await list(member)).map((t: { id: number }) => t.id)).not.toContain(first.id);
      await ctx.members.as(member, 'delete', `${TOKENS}/${first.id}`).expect(404);
    });

    it("another member's token id is 404 and the token keeps working", async () => {
      const owner = await ctx.members.member('QA');
      const other = await ctx.members.member('Admin');
      const pat = await ctx.members.pat(owner, 'view');
      const [item] = await list(owner);
      const res = await ctx.members.as(other, 'delete', `${TOKENS}/${item.id}`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'Token not found' });
      await ctx.members.withPat(pat, 'get', `${PROBE}/view`).expect(200);
    });

    it.each(['abc', '0', '-1', '1.5', '1e3', '99999999999999999999'])('id %s is 400 or 404, never 500', async (id) => {
      const res = await ctx.members.as(admin, 'delete', `${TOKENS}/${id}`);
      expect([400, 404]).toContain(res.status);
      expect(res.body.error).toEqual(expect.any(String));
    });

    it('deleting a member kills their PATs', async () => {
      const member = await ctx.members.member('QA');
      const pat = await ctx.members.pat(member, 'view');
      await ctx.relay.app.get(UsersService).delete(member.id);
      await ctx.members.withPat(pat, 'get', `${PROBE}/view`).expect(401);
    });
  });

  describe('the token endpoints take the cookie only', () => {
    it('GET, POST and DELETE /tokens with a PAT (any scope) or nothing → 401', async () => {
      const pats = [await ctx.members.pat(admin, 'view,builds:write'), await ctx.members.pat(admin, 'agent')];
      const [item] = await list(admin);
      for (const [method, path] of [
        ['get', TOKENS],
        ['post', TOKENS],
        ['delete', `${TOKENS}/${item.id}`],
      ] as const) {
        for (const pat of pats) {
          const res = await ctx.members.withPat(pat, method, path).send({ name: 'x' });
          expect(res.status).toBe(401);
        }
        const none = await ctx.relay.http()[method](path).send({ name: 'x' });
        expect(none.status).toBe(401);
        expect(none.body).toEqual({ error: 'Unauthorized' });
      }
    });
  });
});

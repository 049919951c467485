import { ErrorMessages } from '../../src/common/errors/error-messages';
import { TestMember } from '../support/factory';
import { PROBE, ProbeModule } from '../support/probe.module';
import { useTestRelay } from '../support/use-relay';

const CROSS_SITE = { error: ErrorMessages.crossSite };

describe('CSRF: cookie-authenticated state changes must come from the relay’s own origin', () => {
  const ctx = useTestRelay({ SVC_RELAY_URL: 'https://relay.example.com' }, { imports: [ProbeModule] });
  let member: TestMember;
  beforeAll(async () => {
    member = await ctx.members.member('Developer');
  });

  const tokenCount = async () => (await ctx.members.as(member, 'get', '/api/v1/tokens').expect(200)).body.length;

  it.each([
    ['a foreign Origin', { Origin: 'http://evil.example' }],
    ['another service on the same host (other port)', { Origin: 'http://127.0.0.1:9' }],
    ['https instead of http', { Origin: 'https://127.0.0.1' }],
    ['Origin: null (sandboxed frame, file:)', { Origin: 'null' }],
    ['Sec-Fetch-Site: cross-site without Origin', { 'Sec-Fetch-Site': 'cross-site' }],
  ])('%s with a cookie → 403 and nothing changes', async (_name, headers) => {
    const before = await tokenCount();
    const create = await ctx.members.as(member, 'post', '/api/v1/tokens').set(headers).send({ name: 'csrf' });
    expect(create.status).toBe(403);
    expect(create.body).toEqual(CROSS_SITE);
    expect(await tokenCount()).toBe(before);

    const probe = await ctx.members.as(member, 'post', `${PROBE}/write`).set(headers);
    expect(probe.status).toBe(403);
    expect(probe.body).toEqual(CROSS_SITE);
  });

  it('a cross-site DELETE of a token is refused and the token keeps working', async () => {
    const pat = await ctx.members.pat(member, 'view');
    const [item] = (await ctx.members.as(member, 'get', '/api/v1/tokens')).body.slice(-1);
    await ctx.members.as(member, 'delete', `/api/v1/tokens/${item.id}`).set('Origin', 'http://evil.example').expect(403);
    await ctx.members.withPat(pat, 'get', `${PROBE}/view`).expect(200);
  });

  it('allowed: no Origin (curl, CI), the request’s own origin, the configured relay URL', async () => {
    await ctx.members.as(member, 'post', '/api/v1/tokens').send({ name: 'no origin' }).expect(201);
    await ctx.members.as(member, 'post', '/api/v1/tokens').set('Origin', ctx.relay.url).send({ name: 'own' }).expect(201);
    await ctx.members
      .as(member, 'post', '/api/v1/tokens')
      .set('Origin', 'https://relay.example.com')
      .send({ name: 'public url' })
      .expect(201);
    await ctx.members
      .as(member, 'post', '/api/v1/tokens')
      .set('Sec-Fetch-Site', 'same-origin')
      .send({ name: 'fetch metadata' })
      .expect(201);
  });

  it('reads (GET) are not state changes: a foreign Origin is fine', async () => {
    await ctx.members.as(member, 'get', '/api/v1/auth/me').set('Origin', 'http://evil.example').expect(200);
  });

  it('PAT requests are not affected, whatever the Origin', async () => {
    const pat = await ctx.members.pat(member, 'builds:write');
    for (const origin of ['http://evil.example', 'null']) {
      await ctx.members.withPat(pat, 'post', `${PROBE}/write`).set('Origin', origin).expect(201);
    }
  });

  it('cross-site POST /auth/init and /auth/login are refused too (login CSRF)', async () => {
    const login = await ctx.relay
      .http()
      .post('/api/v1/auth/login')
      .set('Origin', 'http://evil.example')
      .send({ email: member.email, password: member.password });
    expect(login.status).toBe(403);
    expect(login.body).toEqual(CROSS_SITE);
    const init = await ctx.relay
      .http()
      .post('/api/v1/auth/init')
      .set('Origin', 'http://evil.example')
      .send({ email: 'x@example.com', password: 'long enough' });
    expect(init.status).toBe(403);
  });
});

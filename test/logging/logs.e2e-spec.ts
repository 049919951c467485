import { TEST_PASSWORD } from '../support/factory';
import { useTestRelay } from '../support/use-relay';

const LOGS = '/api/v1/logs';

describe('GET /logs', () => {
  const ctx = useTestRelay({ SVC_LOG_LEVEL: 'debug' });

  it('answers an array of log lines, one JSON record each, with the request log line', async () => {
    await ctx.relay.http().get('/api/v1/auth/status').expect(200);
    const res = await ctx.relay.http().get(LOGS).expect(200);
    expect(Array.isArray(res.body)).toBe(true);
    for (const line of res.body) {
      expect(typeof line).toBe('string');
      expect(line).not.toContain('\n');
      expect(JSON.parse(line)).toEqual(expect.objectContaining({ time: expect.any(String), level: expect.any(String) }));
    }
    expect(res.body.map((l: string) => JSON.parse(l))).toContainEqual(
      expect.objectContaining({ context: 'HTTP', level: 'info', msg: expect.stringMatching(/^GET \/api\/v1\/auth\/status 200 [\d.]+ms 127\.0\.0\.1$/) }),
    );
  });

  it('every request gets its line: root paths, unknown routes, body-parser failures', async () => {
    await ctx.relay.http().get('/nowhere/at/all.txt').expect(404);
    await ctx.relay.http().post('/api/v1/auth/login').set('Content-Type', 'application/json').send('{bad').expect(400);
    const msgs = (await ctx.relay.http().get(`${LOGS}?lines=20`).expect(200)).body.map((l: string) => JSON.parse(l).msg);
    expect(msgs).toContainEqual(expect.stringMatching(/^GET \/nowhere\/at\/all\.txt 404 /));
    expect(msgs).toContainEqual(expect.stringMatching(/^POST \/api\/v1\/auth\/login 400 /));
  });

  describe('lines: 1 to 500, default 100, non-number 100, out of range clamped', () => {
    beforeAll(() => {
      for (let i = 0; i < 700; i++) ctx.relay.logger.log(`filler line ${i}`, 'Test');
    });

    it.each([
      ['(absent)', '', 100],
      ['abc', '?lines=abc', 100],
      ['empty', '?lines=', 100],
      ['0', '?lines=0', 1],
      ['-5', '?lines=-5', 1],
      ['1', '?lines=1', 1],
      ['250', '?lines=250', 250],
      ['500', '?lines=500', 500],
      ['501', '?lines=501', 500],
      ['9999', '?lines=9999', 500],
      ['1e9', '?lines=1e9', 500],
      ['repeated', '?lines=3&lines=4', 100],
    ])('lines=%s (query "%s") → %i lines', async (_label, query, count) => {
      const res = await ctx.relay.http().get(`${LOGS}${query}`).expect(200);
      expect(res.body).toHaveLength(count);
    });

    it('keeps only the newest 500 lines, oldest first', async () => {
      ctx.relay.logger.log('the very newest line', 'Test');
      const res = await ctx.relay.http().get(`${LOGS}?lines=500`).expect(200);
      expect(JSON.parse(res.body[res.body.length - 1]).msg).toBe('the very newest line');
      expect(res.body.join('\n')).not.toContain('filler line 0"');
    });
  });

  it('never records passwords, PAT values or cookie values', async () => {
    const password = 'Sup3r-secret passphrase!';
    const admin = await ctx.members.admin();
    const member = await ctx.members.member('QA');
    await ctx.members
      .as(member, 'post', '/api/v1/auth/change-password')
      .send({ currentPassword: member.password, newPassword: password })
      .expect(200);
    await ctx.relay.http().post('/api/v1/auth/login').send({ email: member.email, password: 'wrong pass' }).expect(401);
    const login = await ctx.relay.http().post('/api/v1/auth/login').send({ email: member.email, password }).expect(200);
    const cookieValue = String(login.headers['set-cookie']).split(';')[0].split('=')[1];
    const pat = await ctx.members.pat(admin);
    // the PAT and cookie travel in every place a request can put them
    await ctx.relay.http().get(`/api/v1/nowhere/${pat}`).set('Authorization', `Bearer ${pat}`).expect(404);
    await ctx.relay.http().get(`/api/v1/auth/me?token=${pat}&svc_token=${cookieValue}`).set('Cookie', `svc_token=${cookieValue}`).expect(200);
    // and a message that carries them reaches the logger
    ctx.relay.logger.warn(
      `client sent ${JSON.stringify({ email: member.email, password })} with token=${pat}; svc_token=${cookieValue}`,
      'Test',
    );

    const lines: string[] = (await ctx.relay.http().get(`${LOGS}?lines=500`).expect(200)).body;
    const all = lines.join('\n');
    expect(all).toContain('/api/v1/nowhere/svc_pat_***');
    expect(all).toContain(member.email);
    for (const secret of [password, 'passphrase', TEST_PASSWORD, pat, pat.slice('svc_pat_'.length), cookieValue]) {
      expect(all).not.toContain(secret);
    }
  });

  it('a value with a newline cannot forge a second log line', async () => {
    ctx.relay.logger.log('user input\n{"level":"error","msg":"forged"}', 'Test');
    const lines: string[] = (await ctx.relay.http().get(`${LOGS}?lines=5`).expect(200)).body;
    for (const line of lines) expect(JSON.parse(line).msg).not.toBe('forged');
  });
});

import { EventEmitter2 } from '@nestjs/event-emitter';
import { DataSource } from 'typeorm';
import { SessionsRevokedEvent } from '../../src/auth/events/sessions-revoked.event';
import { HOUR_MS } from '../../src/common/time';
import { TokensRevokedEvent } from '../../src/tokens/events/tokens-revoked.event';
import { MemberFactory, TestMember } from '../support/factory';
import { linkIn, SmtpSink } from '../support/smtp-sink';
import { startTestRelay, TestRelay } from '../support/test-relay';

describe('password reset', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  let smtp: SmtpSink;
  let admin: TestMember;
  const events: Array<{ name: string; payload: { userId: number; reason?: string } }> = [];

  beforeAll(async () => {
    smtp = await new SmtpSink().start();
    relay = await startTestRelay({ ...smtp.env(), SVC_RELAY_URL: 'https://relay.example.com' });
    members = new MemberFactory(relay);
    admin = await members.admin();
    const emitter = relay.app.get(EventEmitter2);
    for (const name of [TokensRevokedEvent.eventName, SessionsRevokedEvent.eventName]) {
      emitter.on(name, (payload: { userId: number }) => events.push({ name, payload }));
    }
  });
  afterAll(async () => {
    await relay.close();
    await smtp.close();
  });

  const sendReset = (id: number) => members.as(admin, 'post', `/api/v1/team/members/${id}/send-reset`);
  const reset = (token: string, password: string) => relay.http().post('/api/v1/auth/reset-password').send({ token, password });

  it('send-reset → e-mail → page → verify → reset: every session and PAT dies, events fire, new password works', async () => {
    const dev = await members.member('Developer');
    const secondBrowser = await members.login(dev.email);
    const pat = await members.pat(dev, 'view');
    await members.withPat(pat, 'get', '/uploads/avatars/00000000000000000000000000000000.png').expect(404);

    const res = await sendReset(dev.id).expect(200);
    expect(res.body).toEqual({
      ok: true,
      emailSent: true,
      token: expect.stringMatching(/^[0-9a-f]{64}$/),
      resetUrl: `https://relay.example.com/reset-password?token=${res.body.token}`,
    });
    const link = linkIn(await smtp.lastTo(dev.email), '/reset-password');
    expect(link).toBe(res.body.resetUrl);
    const token = new URL(link).searchParams.get('token')!;

    const page = await relay.http().get(`/reset-password?token=${token}`); // a dashboard page
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.headers['cache-control']).toBe('no-store');
    expect((await relay.http().get(`/api/v1/auth/reset-password/verify?token=${token}`).expect(200)).body).toEqual({ ok: true });

    expect((await reset(token, 'brand new password').expect(200)).body).toEqual({ ok: true });
    await members.as(dev, 'get', '/api/v1/auth/me').expect(401);
    await relay.http().get('/api/v1/auth/me').set('Cookie', secondBrowser).expect(401);
    await members.withPat(pat, 'get', '/uploads/avatars/00000000000000000000000000000000.png').expect(401);
    expect(events).toContainEqual({ name: TokensRevokedEvent.eventName, payload: expect.objectContaining({ userId: dev.id, reason: 'password_reset' }) });
    expect(events).toContainEqual({ name: SessionsRevokedEvent.eventName, payload: expect.objectContaining({ userId: dev.id }) });
    await relay.http().post('/api/v1/auth/login').send({ email: dev.email, password: dev.password }).expect(401);
    await members.login(dev.email, 'brand new password');

    // Single use.
    expect((await reset(token, 'yet another one').expect(410)).body).toEqual({ error: 'Reset link expired or not found' });
    await relay.http().get(`/api/v1/auth/reset-password/verify?token=${token}`).expect(410);
  });

  it('a newer link invalidates the older one', async () => {
    const qa = await members.member('QA');
    const first = (await sendReset(qa.id).expect(200)).body.token;
    const second = (await sendReset(qa.id).expect(200)).body.token;
    await relay.http().get(`/api/v1/auth/reset-password/verify?token=${first}`).expect(410);
    await reset(first, 'long enough').expect(410);
    await reset(second, 'long enough').expect(200);
  });

  it('expires after 2 hours', async () => {
    const qa = await members.member('QA');
    const token = (await sendReset(qa.id).expect(200)).body.token;
    relay.clock.advance(2 * HOUR_MS - 60_000);
    await relay.http().get(`/api/v1/auth/reset-password/verify?token=${token}`).expect(200);
    relay.clock.advance(60_000);
    await relay.http().get(`/api/v1/auth/reset-password/verify?token=${token}`).expect(410);
    await reset(token, 'long enough').expect(410);
    await members.login(qa.email);
  });

  it('two parallel uses: exactly one succeeds', async () => {
    const qa = await members.member('QA');
    const token = (await sendReset(qa.id).expect(200)).body.token;
    const results = await Promise.all([reset(token, 'password one'), reset(token, 'password two'), reset(token, 'password three')]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 410, 410]);
  });

  it('stores only a hash; validates input; unknown member 404', async () => {
    const qa = await members.member('QA');
    const token = (await sendReset(qa.id).expect(200)).body.token;
    const dump = JSON.stringify(await relay.app.get(DataSource).query('SELECT * FROM password_resets'));
    expect(dump).not.toContain(token);
    expect((await reset(token, 'short77').expect(400)).body.error).toMatch(/at least 8/);
    expect((await relay.http().post('/api/v1/auth/reset-password').send({ password: 'long enough' }).expect(400)).body).toEqual({
      error: 'token is required',
    });
    await reset('f'.repeat(64), 'long enough').expect(410);
    await relay.http().get('/api/v1/auth/reset-password/verify').expect(400);
    expect((await sendReset(99999).expect(404)).body).toEqual({ error: 'Member not found' });
  });

  it('sends no e-mail to a member who joined through an invitation without e-mail', async () => {
    const inv = await members.as(admin, 'post', '/api/v1/team/invite').send({ role: 'QA' }).expect(201);
    await relay
      .http()
      .post('/api/v1/invitations/accept')
      .field('token', inv.body.token)
      .field('password', 'long enough')
      .field('email', 'no-mail@example.com')
      .expect(200);
    const list = await members.as(admin, 'get', '/api/v1/team/members').expect(200);
    const id = list.body.find((m: { email: string }) => m.email === 'no-mail@example.com').id;
    const before = smtp.messages.length;
    const res = await sendReset(id).expect(200);
    expect(res.body.emailSent).toBe(false);
    expect(res.body.resetUrl).toBe(`https://relay.example.com/reset-password?token=${res.body.token}`);
    expect(smtp.messages.length).toBe(before);
  });
});

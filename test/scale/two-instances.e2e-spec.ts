import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { SchedulerRegistry } from '@nestjs/schedule';
import { encodeBinaryFrame } from '../../src/agents/protocol/agent-protocol';
import { ClusterBus } from '../../src/cluster/cluster-bus';
import { ScheduledPurgesService } from '../../src/maintenance/scheduled-purges.service';
import { agentToken, device, TestPeer, wsUrl } from '../agents/agent-kit';
import { eventually } from '../robustness/support/http';
import { fixture } from '../support/build-fixtures';
import { uploadTestBuild } from '../support/builds';
import { describeUnless } from '../support/describe-unless';
import { MemberFactory, sessionCookieFrom, TestMember, TEST_PASSWORD } from '../support/factory';
import { rawBody } from '../support/raw-body';
import { PG_ADMIN_URL, REDIS_URL, unreachable } from '../support/reachable';
import { startTestS3Server, TestS3Server } from '../support/s3-server';
import { SseClient } from '../support/sse-client';
import { startTestRelay, TestRelay } from '../support/test-relay';
import { ClusterTestEnv, clusterTestEnv } from './cluster-env';

/** The relay checks the mime the agent names, not the bytes: a PNG signature and noise will do. */
const PNG = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), randomBytes(256)]);

/**
 * Issue 14 §5: two relay instances on different ports over one PostgreSQL database, one Redis and
 * one S3 server (each instance with a data folder of its own, for temp files only), with agents
 * and users spread across them.
 */
describeUnless(unreachable([PG_ADMIN_URL, REDIS_URL]), 'two relay instances (PostgreSQL + Redis)', () => {
  let cluster: ClusterTestEnv;
  let s3: TestS3Server;
  let savedCredentials: { id?: string; secret?: string } = {};
  const restore = (key: string, value: string | undefined) => (value === undefined ? delete process.env[key] : (process.env[key] = value));
  let a: TestRelay;
  let b: TestRelay;
  let members: MemberFactory;
  let admin: TestMember;

  beforeAll(async () => {
    cluster = await clusterTestEnv();
    s3 = await startTestS3Server();
    const storage = s3.env('relay');
    // The SDK's default credential chain reads these from the process (as in production).
    savedCredentials = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
    process.env.AWS_ACCESS_KEY_ID = storage.AWS_ACCESS_KEY_ID;
    process.env.AWS_SECRET_ACCESS_KEY = storage.AWS_SECRET_ACCESS_KEY;
    const env = { ...storage, ...cluster.env };
    // One after the other: the first runs the migrations.
    a = await startTestRelay(env);
    b = await startTestRelay(env);
    members = new MemberFactory(a);
    admin = await members.admin();
  });

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await cluster?.dispose();
    await s3?.close();
    restore('AWS_ACCESS_KEY_ID', savedCredentials.id);
    restore('AWS_SECRET_ACCESS_KEY', savedCredentials.secret);
  });

  const onB = (member: TestMember, method: 'get' | 'delete' | 'patch', path: string) => b.http()[method](path).set('Cookie', member.cookie);

  it('both are healthy and report Redis', async () => {
    for (const relay of [a, b]) {
      const res = await relay.http().get('/api/v1/health').expect(200);
      expect(res.body.dependencies).toEqual({ database: 'ok', storage: 'ok', redis: 'ok' });
    }
  });

  it('a build uploaded through A downloads through B, whole and by Range; B\'s browsers hear of it', async () => {
    const events = await SseClient.connect(b.url, { Cookie: admin.cookie });
    await events.next('ready');
    const build = await uploadTestBuild(members, admin);
    expect((await events.next('build.created', (d) => d.build_id === build.id)).data).toMatchObject({ app_id: build.appId });
    events.close();

    const whole = await onB(admin, 'get', `/api/v1/builds/${build.id}/download`).parse(rawBody).expect(200);
    const original = readFileSync(fixture('string-label.apk'));
    expect((await s3.objectKeys()).filter((k) => k.startsWith('relay/builds/'))).toHaveLength(1);
    expect(Buffer.compare(whole.body as Buffer, original)).toBe(0);
    const part = await onB(admin, 'get', `/api/v1/builds/${build.id}/download`).set('Range', 'bytes=10-19').parse(rawBody).expect(206);
    expect(part.headers['content-range']).toBe(`bytes 10-19/${original.length}`);
    expect(Buffer.compare(part.body as Buffer, original.subarray(10, 20))).toBe(0);
  });

  it('an agent on A answers a screenshot, a UI tree and a device-session socket opened through B; revoking its token through B closes it on A with 4001', async () => {
    const issuer = await members.member('Admin');
    const token = await agentToken(members, issuer);
    const agent = await TestPeer.agent(a, token, 'agent-on-a');
    await agent.announce(a, [device('scale-1'), device('scale-off', 'shutdown')]);
    const listed = async () => (await onB(admin, 'get', '/api/v1/devices').expect(200)).body.items;
    for (let i = 0; i < 100 && !(await listed()).some((d: { session_id: string; agent_online: boolean }) => d.session_id === 'scale-1' && d.agent_online); i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(await listed()).toEqual(
      expect.arrayContaining([expect.objectContaining({ session_id: 'scale-1', agent: 'agent-on-a', agent_online: true })]),
    );

    // REST screenshot through B: the request reaches the agent on A, the binary answer comes back.
    const shot = onB(admin, 'get', '/api/v1/sessions/scale-1/screenshot').parse(rawBody);
    const asked = agent.nextRequest('screenshot');
    const pending = shot.then((r) => r);
    const request = await asked;
    expect(request.params).toEqual({ sessionId: 'scale-1', format: 'png' });
    agent.send(encodeBinaryFrame({ type: 'response', id: request.id, ok: true, result: { mime: 'image/png' } }, PNG));
    const res = await pending;
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
    expect(Buffer.compare(res.body as Buffer, PNG)).toBe(0);

    // The same status mapping as one relay: an agent error, and a device last known shut down.
    const tree = onB(admin, 'get', '/api/v1/sessions/scale-1/ui-tree').then((r) => r);
    const treeRequest = await agent.nextRequest('ui_tree');
    agent.send({ type: 'response', id: treeRequest.id, ok: false, error: { code: 'not_booted', message: 'off' } });
    expect((await tree).status).toBe(409);
    await onB(admin, 'get', '/api/v1/sessions/scale-off/screenshot').expect(409);
    await onB(admin, 'get', '/api/v1/sessions/nobody/screenshot').expect(404);

    // A device-session socket on B: requests forwarded to A's agent, answers and events back.
    const client = new TestPeer(wsUrl(b, '/api/v1/sessions/scale-1/connect'), { Cookie: admin.cookie });
    await client.opened;
    client.send({ type: 'request', id: 'c1', method: 'tap', params: { x: 0.5, y: 0.5 } });
    const tap = await agent.nextRequest('tap');
    expect(tap.params).toEqual({ x: 0.5, y: 0.5, sessionId: 'scale-1' });
    agent.send({ type: 'response', id: tap.id, ok: true, result: { tapped: true } });
    expect((await client.next((m) => m.json?.type === 'response')).json).toEqual({ type: 'response', id: 'c1', ok: true, result: { tapped: true } });
    agent.send({ type: 'event', sessionId: 'scale-1', event: 'log', data: { line: 'hi' } });
    expect((await client.next((m) => m.json?.type === 'event')).json).toEqual({ type: 'event', sessionId: 'scale-1', event: 'log', data: { line: 'hi' } });

    // Revoked through B: the agent socket on A closes with 4001, and its clients on B with 4502.
    const issuerCookie = sessionCookieFrom((await b.http().post('/api/v1/auth/login').send({ email: issuer.email, password: TEST_PASSWORD }).expect(200)).headers['set-cookie']);
    const tokens = await b.http().get('/api/v1/tokens').set('Cookie', issuerCookie).expect(200);
    await b.http().delete(`/api/v1/tokens/${tokens.body[0].id}`).set('Cookie', issuerCookie).expect(204);
    expect((await agent.closed).code).toBe(4001);
    expect((await client.closed).code).toBe(4502);
  });

  it('the login throttle counts attempts on both instances together', async () => {
    const email = (await members.member('QA')).email;
    for (let i = 0; i < 5; i++) {
      await [a, b][i % 2].http().post('/api/v1/auth/login').send({ email, password: 'wrong password' }).expect(401);
    }
    for (const relay of [a, b]) {
      const res = await relay.http().post('/api/v1/auth/login').send({ email, password: TEST_PASSWORD }).expect(429);
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    }
  });

  it('readiness answers 503 naming Redis while an instance cannot reach it; liveness stays 200; it recovers', async () => {
    const redis = b.app.get(ClusterBus).redis;
    redis.disconnect(); // as if Redis went away for this instance
    try {
      const res = await b.http().get('/api/v1/health').expect(503);
      expect(res.body).toEqual({ error: 'Redis unavailable' });
      await b.http().get('/api/v1/health/live').expect(200);
      await a.http().get('/api/v1/health').expect(200);
    } finally {
      await redis.connect();
    }
    expect((await b.http().get('/api/v1/health').expect(200)).body.dependencies.redis).toBe('ok');
  });

  it('a purge round runs on one instance at a time', async () => {
    const purgesA = a.app.get(ScheduledPurgesService);
    const purgesB = b.app.get(ScheduledPurgesService);
    let insideA: boolean | undefined;
    // The every-minute rounds are stopped for this test, and one either instance began may still hold
    // the lock (on a loaded machine a round takes seconds): wait until a bare round gets it.
    for (const relay of [a, b]) relay.app.get(SchedulerRegistry).getCronJob('purge').stop();
    expect(await eventually(() => a.app.get(ClusterBus).exclusive('purge', 60_000, async () => undefined), 30_000)).toBe(true);
    // While A holds the purge lock, B's round is skipped (nothing run); once A is done, B runs.
    expect(await a.app.get(ClusterBus).exclusive('purge', 60_000, async () => (insideA = await purgesB.runAll()))).toBe(true);
    expect(insideA).toBe(false);
    expect(await purgesB.runAll()).toBe(true);
    expect(await purgesA.runAll()).toBe(true);
  });
});

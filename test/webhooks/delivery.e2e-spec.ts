import { DataSource } from 'typeorm';
import { RELAY_VERSION } from '../../src/relay/relay-version';
import { WebhookDeliverySettings } from '../../src/webhooks/delivery/delivery-settings';
import { WebhookEntity } from '../../src/webhooks/webhook.entity';
import { MemberFactory, TestMember } from '../support/factory';
import { startTestRelay, TestRelay } from '../support/test-relay';
import { describeUnless, LanReceiver, netnsSkipReason } from './support/lan-receiver';
import { LoopbackListener } from './support/loopback-listener';
import { emitStatusChange, eventually, fakeDns, fastRetries, signatureVerifies, sleep } from './support/webhook-helpers';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

interface DeliveryItem {
  delivery_id: string;
  attempt: number;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  attempted_at: string;
  event: string;
}

describeUnless(netnsSkipReason(), 'webhook delivery to a real receiver in a network namespace (spec §3, §6)', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  let admin: TestMember;
  let lan: LanReceiver;
  let loopback: LoopbackListener;
  let pathCounter = 0;

  beforeAll(async () => {
    loopback = await LoopbackListener.start();
    // Same port number as the loopback listener, so a rebinding name could only change the address.
    lan = await LanReceiver.start(loopback.port);
    relay = await startTestRelay();
    members = new MemberFactory(relay);
    admin = await members.admin();
  });
  afterAll(async () => {
    await relay?.close();
    await lan?.stop();
    await loopback?.close();
  });
  beforeEach(() => {
    fastRetries(relay);
    relay.app.get(WebhookDeliverySettings).timeoutMs = 5000;
  });
  afterEach(async () => {
    const list = await members.as(admin, 'get', '/api/v1/webhooks').expect(200);
    for (const hook of list.body.webhooks) await members.as(admin, 'delete', `/api/v1/webhooks/${hook.id}`).expect(200);
  });

  /** A unique path per hook, so each test counts only its own requests. */
  const unique = (kind = 'ok', arg?: string | number) => `/${kind}/${arg ?? ''}${arg === undefined ? '' : '/'}t${++pathCounter}`;
  const register = async (path: string, extra: { secret?: string | null; enabled?: boolean } = {}) =>
    (await members.as(admin, 'post', '/api/v1/webhooks').send({ url: lan.url(path), ...extra }).expect(201)).body as { id: number };
  const deliveries = async (id: number): Promise<DeliveryItem[]> =>
    (await members.as(admin, 'get', `/api/v1/webhooks/${id}/deliveries`).expect(200)).body.deliveries;
  const logOf = (id: number, count: number, timeoutMs = 4000) =>
    eventually(async () => {
      const items = await deliveries(id);
      return items.length >= count ? items : undefined;
    }, timeoutMs, `${count} delivery log entries of webhook #${id}`);

  /**
   * Lets deliveries that were going to happen arrive before a test counts what did not. A LAN
   * delivery takes a few ms here; retries in these tests wait 100 ms.
   */
  const settle = () => sleep(400);

  it('sends one signed POST per change to Done/Rejected, body exactly per §6, signature verifying over the raw bytes', async () => {
    const signedPath = unique();
    const plainPath = unique();
    await register(signedPath, { secret: 'topsecret-ü' });
    await register(plainPath);

    const event = emitStatusChange(relay, null, 'Done', { versionName: '2.3.1' });
    const [signed] = await lan.waitFor(signedPath, 1);
    const [plain] = await lan.waitFor(plainPath, 1);

    expect(signed.body.toString('utf8')).toBe(
      `{"event":"build.status_changed","build":{"id":"${event.build.id}","platform":"android","appVersion":"2.3.1","status":"Done"},"changedAt":"${event.changedAt.toISOString()}"}`,
    );
    expect(plain.body.equals(signed.body)).toBe(true); // serialised once
    expect(signed.method).toBe('POST');
    expect(signed.headers['content-type']).toBe('application/json');
    expect(signed.headers['user-agent']).toBe(`svc-relay/${RELAY_VERSION}`);
    expect(signed.headers['x-svc-event']).toBe('build.status_changed');
    expect(signed.headers['x-svc-delivery']).toMatch(UUID);
    expect(plain.headers['x-svc-delivery']).toMatch(UUID);
    expect(plain.headers['x-svc-delivery']).not.toBe(signed.headers['x-svc-delivery']);
    expect(signed.headers['x-svc-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(signatureVerifies('topsecret-ü', signed.body, signed.headers['x-svc-signature'])).toBe(true);
    expect(signatureVerifies('wrong', signed.body, signed.headers['x-svc-signature'])).toBe(false);
    // Re-serialising the parsed JSON with other spacing breaks the signature: verify over raw bytes.
    const reserialised = Buffer.from(JSON.stringify(JSON.parse(signed.body.toString()), null, 1));
    expect(signatureVerifies('topsecret-ü', reserialised, signed.headers['x-svc-signature'])).toBe(false);
    expect(plain.headers).not.toHaveProperty('x-svc-signature');

    const rejected = emitStatusChange(relay, 'Backlog', 'Rejected', { platform: 'ios', versionName: null });
    const second = (await lan.waitFor(signedPath, 2))[1];
    expect(JSON.parse(second.body.toString())).toEqual({
      event: 'build.status_changed',
      build: { id: String(rejected.build.id), platform: 'ios', appVersion: null, status: 'Rejected' },
      changedAt: rejected.changedAt.toISOString(),
    });
    expect(signatureVerifies('topsecret-ü', second.body, second.headers['x-svc-signature'])).toBe(true);
  });

  it('firing rules: nothing for Done→Done, Backlog, In Progress, clearing, label-only edits; Done→Backlog→Done sends 2', async () => {
    const path = unique();
    await register(path, { secret: 'k' });
    emitStatusChange(relay, 'Done', 'Done');
    emitStatusChange(relay, 'Rejected', 'Rejected');
    emitStatusChange(relay, 'Done', 'Backlog');
    emitStatusChange(relay, null, 'In Progress');
    emitStatusChange(relay, 'Done', null);
    emitStatusChange(relay, 'Done', 'Done'); // what a version_label-only PATCH would look like, if emitted at all
    await settle();
    expect(lan.requestsTo(path)).toHaveLength(0);

    emitStatusChange(relay, 'Backlog', 'Done');
    emitStatusChange(relay, 'Done', 'Backlog');
    emitStatusChange(relay, 'Backlog', 'Done');
    emitStatusChange(relay, 'Rejected', 'Done');
    await lan.waitFor(path, 3);
    await settle();
    expect(lan.requestsTo(path)).toHaveLength(3);
  });

  it('20 rapid changes alternating Done/Rejected → exactly 20 POSTs, each its own delivery id', async () => {
    const path = unique();
    await register(path);
    for (let i = 0; i < 20; i++) emitStatusChange(relay, i % 2 ? 'Done' : 'Rejected', i % 2 ? 'Rejected' : 'Done');
    const received = await lan.waitFor(path, 20);
    await settle();
    expect(lan.requestsTo(path)).toHaveLength(20);
    expect(new Set(received.map((r) => r.headers['x-svc-delivery'])).size).toBe(20);
  });

  it('skips disabled webhooks, and delivers again once re-enabled', async () => {
    const path = unique();
    const hook = await register(path, { enabled: false });
    emitStatusChange(relay, null, 'Rejected');
    await settle();
    expect(lan.requestsTo(path)).toHaveLength(0);
    await members.as(admin, 'patch', `/api/v1/webhooks/${hook.id}`).send({ enabled: true }).expect(200);
    emitStatusChange(relay, null, 'Rejected');
    await lan.waitFor(path, 1);
  });

  it('a hanging receiver is cut off at 5 s while other endpoints are served at once and the emitter never waits', async () => {
    relay.app.get(WebhookDeliverySettings).retryDelaysMs = []; // one attempt: this test measures the timeout
    const hangPath = unique('hang');
    const fastPath = unique();
    const hang = await register(hangPath);
    await register(fastPath);

    const started = Date.now();
    emitStatusChange(relay, 'Backlog', 'Done');
    // The listener only starts the work: the emitter is back before either endpoint has seen a request.
    expect([...lan.requestsTo(fastPath), ...lan.requestsTo(hangPath)]).toEqual([]);

    const [fast] = await lan.waitFor(fastPath, 1);
    await lan.waitFor(hangPath, 1);
    // Cut by the 5 s timeout: not before it, and long before a relay without one would let go (a deadline
    // twice the timeout, generous on a busy machine); the log names the timeout.
    const closed = await lan.waitForEvent(hangPath, 10_000);
    expect(closed.at - started).toBeGreaterThanOrEqual(4500);
    // Concurrent, not queued behind the hanging one: the fast endpoint was served while the hanging
    // request was still open (both times are the receiver's clock).
    expect(fast.at).toBeLessThan(closed.at);
    const [entry] = await logOf(hang.id, 1);
    expect(entry).toMatchObject({ attempt: 1, status_code: null, error: 'timed out after 5000 ms' });
    expect(entry.duration_ms).toBeGreaterThanOrEqual(4900);
  }, 30_000);

  it('retries a 5xx under the same delivery id until it succeeds, and logs each attempt', async () => {
    const path = unique('flaky', 2);
    const hook = await register(path, { secret: 'retry-secret' });
    emitStatusChange(relay, 'In Progress', 'Done');
    const attempts = await lan.waitFor(path, 3);
    const ids = new Set(attempts.map((a) => a.headers['x-svc-delivery']));
    expect(ids.size).toBe(1);
    for (const a of attempts) {
      expect(a.body.equals(attempts[0].body)).toBe(true);
      expect(signatureVerifies('retry-secret', a.body, a.headers['x-svc-signature'])).toBe(true);
    }
    const log = await logOf(hook.id, 3);
    expect(log.map((e) => [e.attempt, e.status_code, e.error])).toEqual([
      [3, 200, null],
      [2, 500, 'HTTP 500'],
      [1, 500, 'HTTP 500'],
    ]);
    expect(log.every((e) => e.delivery_id === [...ids][0] && e.event === 'build.status_changed')).toBe(true);
    expect(log[0].attempted_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    // The same attempts are in the relay log.
    const lines = relay.logger.buffer.tail(500).filter((l) => l.includes([...ids][0]));
    expect(lines).toHaveLength(3);
    expect(lines[2]).toMatch(new RegExp(`webhook #${hook.id} delivery .* attempt 3/3: HTTP 200 in \\d+ ms`));
    expect(lines.join('\n')).not.toContain('retry-secret');
  });

  it('gives up after the bounded number of attempts; retries network errors; never retries a 4xx', async () => {
    const failing = unique('status', 503);
    const notFound = unique('status', 404);
    const failingHook = await register(failing);
    const notFoundHook = await register(notFound);
    // Nothing listens on this port inside the namespace: connection refused.
    const refused = await members
      .as(admin, 'post', '/api/v1/webhooks')
      .send({ url: `http://${lan.address}:${lan.port === 1 ? 2 : 1}/x` })
      .expect(201);

    emitStatusChange(relay, null, 'Done');
    await lan.waitFor(failing, 3);
    const refusedLog = await logOf(refused.body.id, 3);
    expect(refusedLog.map((e) => e.error)).toEqual(Array(3).fill('connection refused (ECONNREFUSED)'));
    await settle(); // longer than the retry delays: no 4th attempt, no 2nd 404
    expect(lan.requestsTo(failing)).toHaveLength(3);
    expect((await deliveries(failingHook.id)).map((e) => e.status_code)).toEqual([503, 503, 503]);
    expect(lan.requestsTo(notFound)).toHaveLength(1);
    expect((await deliveries(notFoundHook.id)).map((e) => [e.status_code, e.error])).toEqual([[404, 'HTTP 404']]);
    expect((await deliveries(refused.body.id)).length).toBe(3);
  });

  it('does not follow redirects (a 3xx is a failed delivery, not retried)', async () => {
    const path = unique('redirect');
    const hook = await members
      .as(admin, 'post', '/api/v1/webhooks')
      .send({ url: lan.url(`${path}?to=${encodeURIComponent(`http://127.0.0.1:${loopback.port}/stolen`)}`) })
      .expect(201);
    emitStatusChange(relay, null, 'Rejected');
    await lan.waitFor(path, 1);
    const [entry] = await logOf(hook.body.id, 1);
    expect(entry).toMatchObject({ status_code: 302, error: 'redirect not followed (HTTP 302)' });
    await settle();
    expect(lan.requestsTo(path)).toHaveLength(1);
    expect(loopback.hits).toEqual([]);
  });

  it('reads only a few KB of a response body that never ends', async () => {
    const path = unique('endless');
    const hook = await register(path);
    emitStatusChange(relay, null, 'Done');
    const [entry] = await logOf(hook.id, 1, 10_000);
    // A success, so it ended before the 5 s timeout (which would log 'timed out after 5000 ms'): it did not
    // wait for the body's end. How little it read is the receiver's count below.
    expect(entry).toMatchObject({ status_code: 200, error: null });
    const closed = await lan.waitForEvent(path, 10_000);
    expect(closed.bytes).toBeLessThan(64 * 1024 * 1024);
  });

  it('pins the connection to the vetted address: a name that rebinds to loopback after registration is refused at send time', async () => {
    const path = unique();
    fakeDns(relay, { 'rebind.test': [lan.address] });
    const hook = await members
      .as(admin, 'post', '/api/v1/webhooks')
      .send({ url: `http://rebind.test:${lan.port}${path}` })
      .expect(201);
    emitStatusChange(relay, null, 'Done');
    const [first] = await lan.waitFor(path, 1);
    // The name exists only in the relay's resolver: the socket went to the address it vetted.
    expect(first.headers.host).toBe(`rebind.test:${lan.port}`);
    expect((await logOf(hook.body.id, 1))[0].status_code).toBe(200);

    fakeDns(relay, { 'rebind.test': ['127.0.0.1'] });
    emitStatusChange(relay, null, 'Rejected');
    const log = await logOf(hook.body.id, 2);
    expect(log[0]).toMatchObject({
      status_code: null,
      error: 'destination refused: rebind.test resolves to 127.0.0.1, a loopback address',
    });
    fakeDns(relay, { 'rebind.test': [lan.address, '127.0.0.1'] });
    emitStatusChange(relay, null, 'Done');
    const mixed = await logOf(hook.body.id, 3);
    expect(mixed[0].error).toMatch(/rebind\.test resolves to 127\.0\.0\.1/);
    await settle();
    expect(loopback.hits).toEqual([]);
    expect(lan.requestsTo(path)).toHaveLength(1);
  });

  it('checks IP literals at send time too (a row edited behind the API never reaches loopback or metadata)', async () => {
    const hook = await register(unique());
    const rows = relay.app.get(DataSource).getRepository(WebhookEntity);
    await rows.update({ id: hook.id }, { url: `http://127.0.0.1:${loopback.port}/literal` });
    emitStatusChange(relay, null, 'Done');
    const [entry] = await logOf(hook.id, 1);
    expect(entry.error).toBe('destination refused: 127.0.0.1 is a loopback address');
    await rows.update({ id: hook.id }, { url: 'http://[::ffff:a9fe:a9fe]/latest/meta-data/' });
    emitStatusChange(relay, null, 'Rejected');
    const log = await logOf(hook.id, 2);
    expect(log[0].error).toBe(
      'destination refused: ::ffff:a9fe:a9fe is an IPv6 form of 169.254.169.254, a cloud metadata address',
    );
    await settle();
    expect(loopback.hits).toEqual([]);
  });

  it("refuses the relay host's own LAN address (the host side of the veth pair) at registration", async () => {
    const res = await members.as(admin, 'post', '/api/v1/webhooks').send({ url: `http://${lan.hostAddress}:${lan.port}/` });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(`Webhook URL refused: ${lan.hostAddress} is an address of the relay's own host`);
  });

  it('keeps the newest 50 attempts per webhook, newest first; deleting the webhook deletes its log', async () => {
    const path = unique();
    const hook = await register(path);
    for (let i = 0; i < 55; i++) emitStatusChange(relay, 'Backlog', 'Done');
    await lan.waitFor(path, 55, 8000);
    const log = await eventually(async () => {
      const items = await deliveries(hook.id);
      return items.length === 50 && items.every((e) => e.status_code === 200) ? items : undefined;
    });
    await sleep(200);
    expect(await deliveries(hook.id)).toHaveLength(50);
    const times = log.map((e) => e.attempted_at);
    expect([...times].sort().reverse()).toEqual(times);
    await members.as(admin, 'delete', `/api/v1/webhooks/${hook.id}`).expect(200);
    await members.as(admin, 'get', `/api/v1/webhooks/${hook.id}/deliveries`).expect(404);
  }, 20000);
});

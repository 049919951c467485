import { MemberFactory, TestMember } from '../support/factory';
import { startTestRelay, TestRelay } from '../support/test-relay';
import { describeUnless, LanReceiver, netnsSkipReason } from './support/lan-receiver';
import { LoopbackListener } from './support/loopback-listener';
import { fakeDns, fastRetries, signatureVerifies, sleep } from './support/webhook-helpers';

const ISO_MILLIS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

interface DeliveryItem {
  delivery_id: string;
  event: string;
  attempt: number;
  attempted_at: string;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
}

describeUnless(netnsSkipReason(), 'POST /webhooks/:id/test: a signed ping through the delivery path (docs/webhooks.md)', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  let admin: TestMember;
  let lan: LanReceiver;
  let loopback: LoopbackListener;
  let pathCounter = 0;

  beforeAll(async () => {
    loopback = await LoopbackListener.start();
    lan = await LanReceiver.start(loopback.port);
    relay = await startTestRelay();
    members = new MemberFactory(relay);
    admin = await members.admin();
    // Retries would show up as extra requests within the settle time below.
    fastRetries(relay, [50, 50, 50]);
  });
  afterAll(async () => {
    await relay?.close();
    await lan?.stop();
    await loopback?.close();
  });

  const unique = (kind = 'ok', arg?: string | number) => `/${kind}/${arg === undefined ? '' : `${arg}/`}tp${++pathCounter}`;
  const register = async (url: string, extra: { secret?: string; enabled?: boolean } = {}) =>
    (await members.as(admin, 'post', '/api/v1/webhooks').send({ url, ...extra }).expect(201)).body as { id: number };
  const ping = async (id: number): Promise<DeliveryItem> => (await members.as(admin, 'post', `/api/v1/webhooks/${id}/test`).expect(200)).body;
  const deliveries = async (id: number): Promise<DeliveryItem[]> =>
    (await members.as(admin, 'get', `/api/v1/webhooks/${id}/deliveries`).expect(200)).body.deliveries;

  it('POSTs a signed ping to the receiver and answers with the attempt, which the delivery log holds', async () => {
    const path = unique();
    const hook = await register(lan.url(path), { secret: 'ping-secret' });

    const attempt = await ping(hook.id);
    const [received] = await lan.waitFor(path, 1);

    expect(attempt).toEqual({
      delivery_id: received.headers['x-svc-delivery'],
      event: 'ping',
      attempt: 1,
      attempted_at: expect.stringMatching(ISO_MILLIS),
      status_code: 200,
      error: null,
      duration_ms: expect.any(Number),
    });
    expect(received.method).toBe('POST');
    expect(received.headers['x-svc-event']).toBe('ping');
    expect(signatureVerifies('ping-secret', received.body, received.headers['x-svc-signature'])).toBe(true);
    expect(JSON.parse(received.body.toString('utf8'))).toEqual({
      event: 'ping',
      webhook: { id: String(hook.id) },
      sentAt: expect.stringMatching(ISO_MILLIS),
    });
    expect(await deliveries(hook.id)).toEqual([attempt]);
  });

  it('pings a disabled webhook too, unsigned without a secret, and does not retry a failed ping', async () => {
    const path = unique('status', 503);
    const hook = await register(lan.url(path), { enabled: false });

    const attempt = await ping(hook.id);
    expect(attempt).toMatchObject({ event: 'ping', attempt: 1, status_code: 503, error: 'HTTP 503' });
    const [received] = await lan.waitFor(path, 1);
    expect(received.headers).not.toHaveProperty('x-svc-signature');

    await sleep(400); // three 50 ms retries would have arrived by now
    expect(lan.requestsTo(path)).toHaveLength(1);
    expect(await deliveries(hook.id)).toEqual([attempt]);
  });

  it('applies the destination rules at send time: a name now resolving to loopback is refused, recorded, never reached', async () => {
    const path = unique();
    fakeDns(relay, { 'ping-rebind.test': [lan.address] });
    const hook = await register(`http://ping-rebind.test:${lan.port}${path}`);
    fakeDns(relay, { 'ping-rebind.test': ['127.0.0.1'] });

    const attempt = await ping(hook.id);
    expect(attempt).toMatchObject({
      status_code: null,
      error: 'destination refused: ping-rebind.test resolves to 127.0.0.1, a loopback address',
    });
    expect(loopback.hits).toHaveLength(0);
    expect(lan.requestsTo(path)).toHaveLength(0);
    expect(await deliveries(hook.id)).toEqual([attempt]);
  });

  it('is for Admins: a Developer gets 403 (and nothing is sent); an unknown webhook is 404', async () => {
    const path = unique();
    const hook = await register(lan.url(path));
    const developer = await members.member('Developer');
    const refused = await members.as(developer, 'post', `/api/v1/webhooks/${hook.id}/test`).expect(403);
    expect(refused.body).toEqual({ error: expect.any(String) });
    const missing = await members.as(admin, 'post', '/api/v1/webhooks/999999/test').expect(404);
    expect(missing.body).toEqual({ error: 'Webhook not found' });
    await sleep(200);
    expect(lan.requestsTo(path)).toHaveLength(0);
    expect(await deliveries(hook.id)).toEqual([]);
  });
});

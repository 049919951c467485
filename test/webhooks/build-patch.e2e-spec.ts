import { MemberFactory, TestMember } from '../support/factory';
import { startTestRelay, TestRelay } from '../support/test-relay';
import { simulatorAppZip } from './support/app-zip';
import { describeUnless, LanReceiver, netnsSkipReason } from './support/lan-receiver';
import { signatureVerifies, sleep } from './support/webhook-helpers';

/** The whole path: PATCH /api/v1/builds/:id → build.status_changed → signed POST. */
const skipReason = netnsSkipReason();

describeUnless(skipReason, 'webhooks through PATCH /api/v1/builds/:id (spec §3 rules 1–4)', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  let developer: TestMember;
  let lan: LanReceiver;
  let buildId: number;

  beforeAll(async () => {
    lan = await LanReceiver.start();
    relay = await startTestRelay();
    members = new MemberFactory(relay);
    developer = await members.member('Developer');
    const upload = await members
      .as(developer, 'post', '/api/v1/builds')
      .attach('file', simulatorAppZip({ name: 'HookDemo', bundleId: 'com.example.hookdemo', version: '3.1.4', build: '27' }), 'HookDemo.app.zip');
    if (upload.status !== 201) throw new Error(`could not upload a build for the test: ${upload.status} ${JSON.stringify(upload.body)}`);
    buildId = upload.body.id;
  });
  afterAll(async () => {
    await relay?.close();
    await lan?.stop();
  });

  const patch = (body: object) => members.as(developer, 'patch', `/api/v1/builds/${buildId}`).send(body);

  it('sends exactly one signed POST per change to Done/Rejected, and nothing for the other edits', async () => {
    await members.as(developer, 'post', '/api/v1/webhooks').send({ url: lan.url('/ok/patch'), secret: 'patch-secret' }).expect(201);

    await patch({ status_label: 'Done' }).expect(200, { ok: true });
    const [first] = await lan.waitFor('/ok/patch', 1);
    expect(JSON.parse(first.body.toString())).toEqual({
      event: 'build.status_changed',
      build: { id: String(buildId), platform: 'ios', appVersion: '3.1.4', status: 'Done' },
      changedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
    });
    expect(signatureVerifies('patch-secret', first.body, first.headers['x-svc-signature'])).toBe(true);

    await patch({ status_label: 'Done' }).expect(200); // Done → Done
    await patch({ version_label: 'release/3.1' }).expect(200); // label only
    await patch({ status_label: 'Backlog' }).expect(200);
    await patch({ status_label: 'In Progress' }).expect(200);
    await sleep(400);
    expect(lan.requestsTo('/ok/patch')).toHaveLength(1);

    await patch({ status_label: 'Rejected' }).expect(200);
    await patch({ status_label: 'Done' }).expect(200);
    const all = await lan.waitFor('/ok/patch', 3);
    await sleep(400);
    expect(lan.requestsTo('/ok/patch')).toHaveLength(3);
    // Deliveries run concurrently, so two changes a moment apart may arrive in either order; the
    // order of the changes is in changedAt (docs/webhooks.md).
    const later = all.slice(1).map((r) => JSON.parse(r.body.toString()) as { build: { status: string }; changedAt: string });
    const rejected = later.find((b) => b.build.status === 'Rejected');
    const doneAgain = later.find((b) => b.build.status === 'Done');
    expect(rejected && doneAgain && rejected.changedAt <= doneAgain.changedAt).toBe(true);
  });

  it('a hanging or refusing receiver does not slow the PATCH, and the status still changes (rule 4)', async () => {
    await members.as(developer, 'post', '/api/v1/webhooks').send({ url: lan.url('/hang/patch') }).expect(201);
    await members.as(developer, 'post', '/api/v1/webhooks').send({ url: `http://${lan.address}:1/refused` }).expect(201);
    await patch({ status_label: 'Backlog' }).expect(200);
    await patch({ status_label: 'Rejected' }).expect(200, { ok: true });
    const answeredAt = Date.now();
    await lan.waitFor('/hang/patch', 1);
    // The PATCH was answered while its delivery still hung: a PATCH that waited for its webhooks would be
    // answered only after the 5 s timeout cut the hanging request (same machine clock on both sides).
    const cut = await lan.waitForEvent('/hang/patch', 10_000);
    expect(answeredAt).toBeLessThan(cut.at);
    const build = await members.as(developer, 'get', `/api/v1/builds/${buildId}`).expect(200);
    expect(build.body.status_label).toBe('Rejected');
  });
});

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { uploadTestBuild } from '../support/builds';
import { MemberFactory, TestMember } from '../support/factory';
import { startTestRelay, TestRelay } from '../support/test-relay';
import { describeUnless, LanReceiver, netnsSkipReason } from './support/lan-receiver';
import { LoopbackListener } from './support/loopback-listener';
import { sleep } from './support/webhook-helpers';

/**
 * PATCH /builds/:id answers `X-Webhooks-Notified`: how many endpoints this change notifies (the
 * body stays spec §4's `{ ok: true }`), so the dashboard says "no webhook" rather than "webhooks notified".
 */
const NOTIFIED = 'x-webhooks-notified';

describeUnless(netnsSkipReason(), 'X-Webhooks-Notified with API webhooks (0, 1, 2 subscribed)', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  let developer: TestMember;
  let lan: LanReceiver;

  beforeAll(async () => {
    lan = await LanReceiver.start();
    relay = await startTestRelay();
    members = new MemberFactory(relay);
    developer = await members.member('Developer');
  });
  afterAll(async () => {
    await relay?.close();
    await lan?.stop();
  });

  const setStatus = async (status: string | null) => {
    const build = await uploadTestBuild(members, developer);
    const res = await members.as(developer, 'patch', `/api/v1/builds/${build.id}`).send({ status_label: status }).expect(200, { ok: true });
    return res.headers[NOTIFIED];
  };

  it('counts the enabled webhooks a change to Done or Rejected notifies, and delivers to exactly that many', async () => {
    expect(await setStatus('Done')).toBe('0');

    await members.as(developer, 'post', '/api/v1/webhooks').send({ url: lan.url('/ok/count-1') }).expect(201);
    await members.as(developer, 'post', '/api/v1/webhooks').send({ url: lan.url('/ok/count-off'), enabled: false }).expect(201);
    expect(await setStatus('Done')).toBe('1');
    await lan.waitFor('/ok/count-1', 1);

    await members.as(developer, 'post', '/api/v1/webhooks').send({ url: lan.url('/ok/count-2') }).expect(201);
    expect(await setStatus('Rejected')).toBe('2');
    await lan.waitFor('/ok/count-1', 2);
    await lan.waitFor('/ok/count-2', 1);
    await sleep(300);
    expect(lan.requestsTo('/ok/count-off')).toHaveLength(0);
  });

  it('follows each change to the webhooks at once: enabling, disabling and deleting one (the enabled list is kept between changes)', async () => {
    const listed = (await members.as(developer, 'get', '/api/v1/webhooks').expect(200)).body.webhooks as { id: number; url: string; enabled: boolean }[];
    const off = listed.find((hook) => hook.url.endsWith('/ok/count-off'))!;
    const second = listed.find((hook) => hook.url.endsWith('/ok/count-2'))!;
    await members.as(developer, 'patch', `/api/v1/webhooks/${off.id}`).send({ enabled: true }).expect(200);
    expect(await setStatus('Done')).toBe('3');
    await lan.waitFor('/ok/count-off', 1);
    await members.as(developer, 'patch', `/api/v1/webhooks/${off.id}`).send({ enabled: false }).expect(200);
    expect(await setStatus('Done')).toBe('2');
    await members.as(developer, 'delete', `/api/v1/webhooks/${second.id}`).expect(200);
    expect(await setStatus('Rejected')).toBe('1');
    await lan.waitFor('/ok/count-1', 5);
    await sleep(300);
    expect(lan.requestsTo('/ok/count-off')).toHaveLength(1);
    expect(lan.requestsTo('/ok/count-2')).toHaveLength(3);
    // Back as the next test expects them: count-1 and a second enabled webhook.
    await members.as(developer, 'post', '/api/v1/webhooks').send({ url: lan.url('/ok/count-2') }).expect(201);
  });

  it('says 0 for changes that notify nobody (Backlog, In Progress, no status, the same value)', async () => {
    expect(await setStatus('In Progress')).toBe('0');
    expect(await setStatus('Backlog')).toBe('0');
    expect(await setStatus(null)).toBe('0');
    const build = await uploadTestBuild(members, developer);
    const patch = () => members.as(developer, 'patch', `/api/v1/builds/${build.id}`).send({ status_label: 'Done' }).expect(200);
    expect((await patch()).headers[NOTIFIED]).toBe('2');
    expect((await patch()).headers[NOTIFIED]).toBe('0'); // Done → Done sends nothing (spec §3 rule 2)
  });
});

describe('X-Webhooks-Notified counts usable svc.config.json webhooks', () => {
  let relay: TestRelay;
  let loopback: LoopbackListener;
  let configDir: string;

  beforeAll(async () => {
    loopback = await LoopbackListener.start();
    configDir = mkdtempSync(join(tmpdir(), 'svc-notified-'));
    const configPath = join(configDir, 'svc.config.json');
    writeFileSync(
      configPath,
      JSON.stringify({
        webhooks: [
          { url: `http://127.0.0.1:${loopback.port}/bot`, secretEnv: 'SVC_TEST_NOTIFIED_SECRET' },
          { url: `http://127.0.0.1:${loopback.port}/off`, enabled: false },
          { url: 'http://169.254.169.254/latest/meta-data/' },
          { url: `http://127.0.0.1:${loopback.port}/unset-secret`, secretEnv: 'SVC_TEST_NOTIFIED_UNSET' },
        ],
      }),
    );
    relay = await startTestRelay({ SVC_CONFIG: configPath, SVC_TEST_NOTIFIED_SECRET: 'bot-secret' });
  });
  afterAll(async () => {
    await relay?.close();
    await loopback?.close();
    rmSync(configDir, { recursive: true, force: true });
  });

  it('counts only the file endpoints that are enabled and in use, and the body keeps its spec shape', async () => {
    const members = new MemberFactory(relay);
    const reviewer = await members.member('Developer');
    const build = await uploadTestBuild(members, reviewer);
    const res = await members.as(reviewer, 'patch', `/api/v1/builds/${build.id}`).send({ status_label: 'Done' }).expect(200);
    expect(res.body).toEqual({ ok: true });
    expect(res.headers[NOTIFIED]).toBe('1');
    for (let i = 0; i < 50 && loopback.hits.length === 0; i++) await sleep(50);
    expect(loopback.hits.map((hit) => hit.url)).toEqual(['/bot']);
  });
});

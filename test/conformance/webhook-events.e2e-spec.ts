import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { attachBuild } from '../support/build-fixtures';
import { uploadTestBuild } from '../support/builds';
import type { MemberFactory, TestMember } from '../support/factory';
import { MemberFactory as Factory } from '../support/factory';
import { startTestRelay, TestRelay } from '../support/test-relay';
import { LoopbackListener } from '../webhooks/support/loopback-listener';
import { ISO_MS } from './support';

const SECRET = 'conformance-secret';

/**
 * spec §3 firing rules and §6 body/signature, black-box: a svc.config.json webhook (operator-trusted,
 * so it may point at loopback) receives what PATCH /builds/:id emits.
 */
describe('conformance: §3 webhook firing rules, §6 event body and signature', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  let hook: LoopbackListener;
  let configDir: string;
  let dev: TestMember;

  beforeAll(async () => {
    hook = await LoopbackListener.start();
    configDir = mkdtempSync(join(tmpdir(), 'svc-conformance-'));
    const configPath = join(configDir, 'svc.config.json');
    writeFileSync(configPath, JSON.stringify({ webhooks: [{ url: `http://127.0.0.1:${hook.port}/hook`, secretEnv: 'SVC_CONF_HOOK_SECRET' }] }));
    relay = await startTestRelay({ SVC_CONFIG: configPath, SVC_CONF_HOOK_SECRET: SECRET });
    members = new Factory(relay);
    dev = await members.member('Developer');
  });
  afterAll(async () => {
    await relay?.close();
    await hook?.close();
    rmSync(configDir, { recursive: true, force: true });
  });

  const patch = (id: number, body: object) => members.as(dev, 'patch', `/api/v1/builds/${id}`).send(body).expect(200);
  /** Waits a little for deliveries, then returns how many arrived since `from`. */
  async function hitsAfter(from: number, expected: number) {
    const deadline = Date.now() + (expected > 0 ? 3000 : 400);
    while (Date.now() < deadline && hook.hits.length - from < Math.max(expected, 1)) await new Promise((r) => setTimeout(r, 20));
    if (expected === 0) await new Promise((r) => setTimeout(r, 200));
    return hook.hits.slice(from);
  }

  it('Done sends exactly one signed build.status_changed with the §6 body', async () => {
    const { id } = await uploadTestBuild(members, dev);
    const from = hook.hits.length;
    await patch(id, { status_label: 'Done' });
    const hits = await hitsAfter(from, 1);
    expect(hits).toHaveLength(1);
    const [hit] = hits;
    expect(hit.method).toBe('POST');
    expect(hit.headers['content-type']).toMatch(/^application\/json/);
    const expected = 'sha256=' + createHmac('sha256', SECRET).update(hit.body).digest('hex');
    expect(hit.headers['x-svc-signature']).toBe(expected);
    const body = JSON.parse(hit.body.toString('utf8'));
    expect(Object.keys(body).sort()).toEqual(['build', 'changedAt', 'event']);
    expect(Object.keys(body.build).sort()).toEqual(['appVersion', 'id', 'platform', 'status']);
    expect(body).toEqual({
      event: 'build.status_changed',
      build: { id: String(id), platform: 'android', appVersion: '2.0.0-beta', status: 'Done' },
      changedAt: expect.stringMatching(ISO_MS),
    });
  });

  it('Done→Done, Backlog, In Progress, null and version_label-only edits send nothing; Rejected sends one', async () => {
    const { id } = await uploadTestBuild(members, dev);
    await patch(id, { status_label: 'Done' });
    await hitsAfter(hook.hits.length, 1);
    const from = hook.hits.length;
    await patch(id, { status_label: 'Done' });
    await patch(id, { version_label: 'rc2' });
    await patch(id, { status_label: 'Backlog' });
    await patch(id, { status_label: 'In Progress' });
    await patch(id, { status_label: null });
    expect(await hitsAfter(from, 0)).toHaveLength(0);
    await patch(id, { status_label: 'Rejected' });
    const hits = await hitsAfter(from, 1);
    expect(hits).toHaveLength(1);
    expect(JSON.parse(hits[0].body.toString()).build.status).toBe('Rejected');
  });

  it('an upload with status Done sends nothing (no webhook on creation)', async () => {
    const from = hook.hits.length;
    await attachBuild(members.as(dev, 'post', '/api/v1/builds'), 'string-label.apk', { status: 'Done' }).expect(201);
    expect(await hitsAfter(from, 0)).toHaveLength(0);
  });
});

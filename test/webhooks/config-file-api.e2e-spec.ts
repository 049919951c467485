import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { uploadTestBuild } from '../support/builds';
import { MemberFactory, TestMember } from '../support/factory';
import { startTestRelay, TestRelay } from '../support/test-relay';
import { LoopbackListener } from './support/loopback-listener';
import { eventually, signatureVerifies } from './support/webhook-helpers';

const ISO_MILLIS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/**
 * svc.config.json webhooks through the API, read-only (docs/webhooks.md "Config-file webhooks"):
 * listed under /webhooks/config with ids that cannot be an API webhook's, each with its delivery
 * log and an Admin's test delivery. The receiver is on loopback, which the operator's file may use.
 */
describe('svc.config.json webhooks in the API: listed read-only, delivery log, test delivery', () => {
  let relay: TestRelay;
  let loopback: LoopbackListener;
  let configDir: string;
  let members: MemberFactory;
  let admin: TestMember;
  let developer: TestMember;

  beforeAll(async () => {
    loopback = await LoopbackListener.start();
    configDir = mkdtempSync(join(tmpdir(), 'svc-config-api-'));
    const configPath = join(configDir, 'svc.config.json');
    writeFileSync(
      configPath,
      JSON.stringify({
        webhooks: [
          { url: `http://127.0.0.1:${loopback.port}/bot?token=sekrit`, secretEnv: 'SVC_TEST_CONFIG_API_SECRET' },
          { url: `http://127.0.0.1:${loopback.port}/off`, enabled: false },
          { url: 'http://169.254.169.254/latest/meta-data/' },
          { url: `http://127.0.0.1:${loopback.port}/unset`, secretEnv: 'SVC_TEST_CONFIG_API_UNSET' },
        ],
      }),
    );
    relay = await startTestRelay({ SVC_CONFIG: configPath, SVC_TEST_CONFIG_API_SECRET: 'file-secret' });
    members = new MemberFactory(relay);
    admin = await members.admin();
    developer = await members.member('Developer');
  });
  afterAll(async () => {
    await relay?.close();
    await loopback?.close();
    rmSync(configDir, { recursive: true, force: true });
  });

  it('lists every file entry with a string id, its origin only (paths and queries may hold tokens) and why one is not used', async () => {
    const res = await members.as(developer, 'get', '/api/v1/webhooks/config').expect(200);
    const origin = `http://127.0.0.1:${loopback.port}`;
    expect(res.body).toEqual({
      webhooks: [
        { id: 'config-0', source: 'svc.config.json', index: 0, url: `${origin}/…`, enabled: true, has_secret: true, in_use: true, problem: null },
        { id: 'config-1', source: 'svc.config.json', index: 1, url: `${origin}/…`, enabled: false, has_secret: false, in_use: false, problem: 'disabled in svc.config.json' },
        {
          id: 'config-2', source: 'svc.config.json', index: 2, url: 'http://169.254.169.254/…', enabled: true, has_secret: false, in_use: false,
          problem: '169.254.169.254 is a cloud metadata address',
        },
        {
          id: 'config-3', source: 'svc.config.json', index: 3, url: `${origin}/…`, enabled: true, has_secret: false, in_use: false,
          problem: 'environment variable SVC_TEST_CONFIG_API_UNSET (its secretEnv) is not set',
        },
      ],
    });
    expect(JSON.stringify(res.body)).not.toContain('sekrit');
    // The spec's list holds API webhooks only, and file entries cannot be edited through it.
    expect((await members.as(developer, 'get', '/api/v1/webhooks').expect(200)).body).toEqual({ webhooks: [] });
    await members.as(admin, 'patch', '/api/v1/webhooks/config-0').send({ enabled: false }).expect(400, { error: 'id must be a positive integer' });
    await members.as(admin, 'delete', '/api/v1/webhooks/config-0').expect(400);
    const viewer = await members.member('Viewer');
    await members.as(viewer, 'get', '/api/v1/webhooks/config').expect(403);
  });

  it('keeps each entry\'s delivery log: a status change to Done shows there', async () => {
    const build = await uploadTestBuild(members, developer);
    await members.as(developer, 'patch', `/api/v1/builds/${build.id}`).send({ status_label: 'Done' }).expect(200);
    const [delivery] = await eventually(async () => {
      const list = (await members.as(developer, 'get', '/api/v1/webhooks/config/0/deliveries').expect(200)).body.deliveries;
      return list.length ? list : undefined;
    });
    const hit = loopback.hits.find((h) => h.headers['x-svc-event'] === 'build.status_changed');
    expect(delivery).toEqual({
      delivery_id: hit?.headers['x-svc-delivery'],
      event: 'build.status_changed',
      attempt: 1,
      attempted_at: expect.stringMatching(ISO_MILLIS),
      status_code: 200,
      error: null,
      duration_ms: expect.any(Number),
    });
    expect((await members.as(developer, 'get', '/api/v1/webhooks/config/1/deliveries').expect(200)).body).toEqual({ deliveries: [] });
    await members.as(developer, 'get', '/api/v1/webhooks/config/9/deliveries').expect(404, { error: 'Webhook not found' });
  });

  it('sends an Admin\'s signed test delivery to an entry in use, logs it, and refuses one not in use', async () => {
    const before = loopback.hits.length;
    const attempt = (await members.as(admin, 'post', '/api/v1/webhooks/config/0/test').expect(200)).body;
    expect(attempt).toMatchObject({ event: 'ping', attempt: 1, status_code: 200, error: null });
    const ping = loopback.hits.slice(before).find((h) => h.headers['x-svc-event'] === 'ping');
    expect(ping?.url).toBe('/bot?token=sekrit');
    expect(signatureVerifies('file-secret', ping!.body, String(ping!.headers['x-svc-signature']))).toBe(true);
    expect(JSON.parse(ping!.body.toString('utf8'))).toEqual({ event: 'ping', webhook: { id: 'config-0' }, sentAt: expect.stringMatching(ISO_MILLIS) });
    expect((await members.as(admin, 'get', '/api/v1/webhooks/config/0/deliveries').expect(200)).body.deliveries[0]).toEqual(attempt);

    await members.as(developer, 'post', '/api/v1/webhooks/config/0/test').expect(403);
    const refused = await members.as(admin, 'post', '/api/v1/webhooks/config/2/test').expect(400);
    expect(refused.body).toEqual({ error: 'svc.config.json webhooks[2] is not used: 169.254.169.254 is a cloud metadata address' });
    await members.as(admin, 'post', '/api/v1/webhooks/config/3/test').expect(400);
    await members.as(admin, 'post', '/api/v1/webhooks/config/9/test').expect(404, { error: 'Webhook not found' });
    expect(loopback.hits.filter((h) => h.url === '/unset' || h.url === '/off')).toHaveLength(0);
  });
});

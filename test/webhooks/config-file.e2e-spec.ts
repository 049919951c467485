import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/config.loader';
import { MemberFactory } from '../support/factory';
import { startTestRelay, TestRelay } from '../support/test-relay';
import { describeUnless, LanReceiver, netnsSkipReason } from './support/lan-receiver';
import { LoopbackListener } from './support/loopback-listener';
import { emitStatusChange, eventually, signatureVerifies, sleep } from './support/webhook-helpers';

describeUnless(netnsSkipReason(), 'svc.config.json webhooks (spec §4, issue 4 item 4)', () => {
  let relay: TestRelay;
  let lan: LanReceiver;
  let loopback: LoopbackListener;
  let configDir: string;
  let configPath: string;

  beforeAll(async () => {
    lan = await LanReceiver.start();
    loopback = await LoopbackListener.start();
    configDir = mkdtempSync(join(tmpdir(), 'svc-webhook-config-'));
    configPath = join(configDir, 'svc.config.json');
    writeFileSync(
      configPath,
      JSON.stringify({
        webhooks: [
          { url: lan.url('/ok/file-lan'), secretEnv: 'SVC_TEST_HOOK_SECRET_LAN' },
          { url: `http://127.0.0.1:${loopback.port}/file-loopback`, secretEnv: 'SVC_TEST_HOOK_SECRET_BOT', enabled: true },
          { url: 'http://169.254.169.254/latest/meta-data/' },
          { url: 'http://metadata.google.internal/computeMetadata/v1/' },
          { url: 'http://[::ffff:a9fe:a9fe]/' },
          { url: lan.url('/ok/file-disabled'), secretEnv: 'SVC_TEST_HOOK_SECRET_LAN', enabled: false },
          { url: lan.url('/ok/file-unsigned') },
        ],
      }),
    );
    relay = await startTestRelay({
      SVC_CONFIG: configPath,
      SVC_TEST_HOOK_SECRET_LAN: 'lan-file-secret',
      SVC_TEST_HOOK_SECRET_BOT: 'bot-file-secret',
    });
  });
  afterAll(async () => {
    await relay?.close();
    await lan?.stop();
    await loopback?.close();
    rmSync(configDir, { recursive: true, force: true });
  });

  it('warns at start-up about each file endpoint it will not use, naming it', () => {
    const warnings = relay.logger.buffer
      .tail(500)
      .map((line) => JSON.parse(line))
      .filter((e) => e.level === 'warn' && e.context === 'Webhooks')
      .map((e) => e.msg);
    expect(warnings).toEqual(
      expect.arrayContaining([
        'svc.config.json webhooks[2] (169.254.169.254) is not used: 169.254.169.254 is a cloud metadata address',
        'svc.config.json webhooks[3] (metadata.google.internal) is not used: metadata.google.internal is a cloud metadata host',
        'svc.config.json webhooks[4] ([::ffff:a9fe:a9fe]) is not used: ::ffff:a9fe:a9fe is an IPv6 form of 169.254.169.254, a cloud metadata address',
        `svc.config.json webhooks[6] (${lan.address}:${lan.port}) has no secretEnv: its deliveries are not signed`,
      ]),
    );
    expect(warnings.join('\n')).not.toMatch(/webhooks\[[015]\]/);
  });

  it('delivers to file endpoints (loopback allowed for the operator) alongside API webhooks, each signed with its own secret', async () => {
    const members = new MemberFactory(relay);
    const admin = await members.admin();
    await members.as(admin, 'post', '/api/v1/webhooks').send({ url: lan.url('/ok/api-1'), secret: 'api-secret' }).expect(201);
    await members.as(admin, 'post', '/api/v1/webhooks').send({ url: lan.url('/ok/api-2') }).expect(201);
    await members.as(admin, 'post', '/api/v1/webhooks').send({ url: lan.url('/ok/api-off'), enabled: false }).expect(201);
    // The API still refuses what the file may do.
    const refused = await members.as(admin, 'post', '/api/v1/webhooks').send({ url: `http://127.0.0.1:${loopback.port}/x` });
    expect(refused.status).toBe(400);

    emitStatusChange(relay, 'In Progress', 'Rejected');
    const [fileLan] = await lan.waitFor('/ok/file-lan', 1);
    const [api1] = await lan.waitFor('/ok/api-1', 1);
    const [api2] = await lan.waitFor('/ok/api-2', 1);
    const [unsigned] = await lan.waitFor('/ok/file-unsigned', 1);
    const bot = await eventually(async () => loopback.hits[0], 4000, 'the loopback bot delivery');
    await sleep(300);

    expect(signatureVerifies('lan-file-secret', fileLan.body, fileLan.headers['x-svc-signature'])).toBe(true);
    expect(signatureVerifies('api-secret', api1.body, api1.headers['x-svc-signature'])).toBe(true);
    expect(signatureVerifies('bot-file-secret', bot.body, String(bot.headers['x-svc-signature']))).toBe(true);
    expect(api2.headers).not.toHaveProperty('x-svc-signature');
    expect(unsigned.headers).not.toHaveProperty('x-svc-signature');
    expect(bot.url).toBe('/file-loopback');
    // Exactly one POST per enabled endpoint: 2 API + 3 usable file endpoints.
    expect(lan.requests.map((r) => r.path).sort()).toEqual(['/ok/api-1', '/ok/api-2', '/ok/file-lan', '/ok/file-unsigned']);
    expect(loopback.hits).toHaveLength(1);
    const ids = [fileLan, api1, api2, unsigned].map((r) => r.headers['x-svc-delivery']).concat(String(bot.headers['x-svc-delivery']));
    expect(new Set(ids).size).toBe(5);
    // The same bytes everywhere.
    expect([api1, api2, unsigned].every((r) => r.body.equals(fileLan.body)) && bot.body.equals(fileLan.body)).toBe(true);

    const log = relay.logger.buffer.tail(500).join('\n');
    expect(log).toMatch(/svc\.config\.json webhooks\[1\] \(127\.0\.0\.1:\d+\) delivery [0-9a-f-]{36} attempt 1\/4: HTTP 200/);
    expect(log).not.toContain('bot-file-secret');
    expect(log).not.toContain('lan-file-secret');
  });

  it('a secretEnv naming an unset variable is a start-up warning naming it, and that endpoint is never sent to (never unsigned)', async () => {
    const config = loadConfig({ SVC_CONFIG: configPath, SVC_TEST_HOOK_SECRET_LAN: 'x' }, configDir);
    expect(config.webhooks[1]).toEqual(expect.objectContaining({ secretEnv: 'SVC_TEST_HOOK_SECRET_BOT', secret: null }));
    const second = await startTestRelay({ SVC_CONFIG: configPath, SVC_TEST_HOOK_SECRET_LAN: 'lan-file-secret' });
    try {
      const warnings = second.logger.buffer.tail(500).join('\n');
      expect(warnings).toContain(
        'webhooks[1] (127.0.0.1:' + loopback.port + ') is not used: environment variable SVC_TEST_HOOK_SECRET_BOT (its secretEnv) is not set',
      );
      const before = loopback.hits.length;
      emitStatusChange(second, 'In Progress', 'Done');
      await sleep(500);
      expect(loopback.hits.length).toBe(before);
    } finally {
      await second.close();
    }
  });
});

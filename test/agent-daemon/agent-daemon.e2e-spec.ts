import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import type { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { fakePng } from '../../src/agent-daemon/backends/fake-backend';
import { startRelay } from '../../src/bootstrap/start-relay';
import { loadConfig } from '../../src/config/config.loader';
import { JsonLogger } from '../../src/logging/json-logger';
import { MemberFactory } from '../support/factory';
import { startTestRelay, TestRelay } from '../support/test-relay';
import { rawBody } from '../support/raw-body';
import { agentToken } from '../agents/agent-kit';

const ROOT = join(__dirname, '..', '..');

/** The same relay again: same data directory and database (so the same tokens) on the same port. */
async function restartRelay(relay: TestRelay): Promise<NestExpressApplication> {
  const config = loadConfig({ ...relay.env, SVC_PORT: String(relay.port) }, relay.dataDir);
  return startRelay(config, new JsonLogger(config.logLevel, () => undefined));
}


describe('reference agent as a process (svc agent --fake)', () => {
  let daemon: ChildProcess | null = null;
  afterEach(() => daemon?.kill('SIGKILL'));

  it('serves screenshots, reconnects after the relay restarts, and stops cleanly on SIGTERM', async () => {
    const first = await startTestRelay();
    const members = new MemberFactory(first);
    const token = await agentToken(members);
    const view = await members.pat(await members.member('Viewer'), 'view');
    const { url } = first;

    daemon = spawn(
      process.execPath,
      ['-r', 'ts-node/register/transpile-only', 'src/agent-daemon/main.ts', '--relay', url, '--name', 'proc', '--fake'],
      { cwd: ROOT, env: { ...process.env, SVC_AGENT_TOKEN: token }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    daemon.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    const exited = new Promise<number | null>((resolve) => daemon!.once('exit', (code) => resolve(code)));

    const screenshot = () =>
      request(url).get('/api/v1/sessions/fake-ios-proc/screenshot').set('Authorization', `Bearer ${view}`).buffer(true).parse(rawBody);
    const served = async () => {
      const deadline = Date.now() + 15_000;
      for (;;) {
        const res = await screenshot().catch(() => null);
        if (res?.status === 200) return res;
        if (Date.now() > deadline) throw new Error(`agent never served a screenshot; its log:\n${output}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };

    expect(Buffer.compare((await served()).body, fakePng('fake-ios-proc'))).toBe(0);

    await first.app.close();
    const second = await restartRelay(first);
    try {
      // a fresh relay knows no devices: this works only once the agent reconnected and re-sent hello and devices
      expect(Buffer.compare((await served()).body, fakePng('fake-ios-proc'))).toBe(0);
      expect(output).toMatch(/disconnected \(1001\); reconnecting/);

      daemon.kill('SIGTERM');
      expect(await exited).toBe(0);
      daemon = null;
      let status = 0;
      for (let i = 0; i < 50 && status !== 502; i++) {
        status = (await screenshot()).status;
        if (status !== 502) await new Promise((r) => setTimeout(r, 50));
      }
      expect(status).toBe(502); // the agent said goodbye: its sessions are offline
    } finally {
      await second.close();
      await first.discard();
    }
  }, 60_000);
});

import { execFile } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { RELAY_VERSION } from '../../src/relay/relay-version';
import { startTestRelay, TestRelay } from '../support/test-relay';

const HEALTHCHECK = join(__dirname, '..', '..', 'bin', 'healthcheck.js');

/** The container HEALTHCHECK script against the relay; resolves with its exit code. */
function healthcheck(port: number): Promise<number> {
  return new Promise((resolve) =>
    execFile(process.execPath, [HEALTHCHECK], { env: { ...process.env, SVC_PORT: String(port) } }, (err) =>
      resolve(err ? Number(err.code ?? 1) : 0),
    ),
  );
}

describe('GET /api/v1/health', () => {
  let relay: TestRelay;
  beforeEach(async () => {
    relay = await startTestRelay();
  });
  afterEach(() => relay.close());

  it('200 without auth while the database answers: status, version, uptime', async () => {
    const res = await relay.http().get('/api/v1/health').expect(200);
    expect(res.body).toEqual({
      status: 'ok',
      version: RELAY_VERSION,
      uptimeSeconds: expect.any(Number),
      dependencies: { database: 'ok', storage: 'ok', redis: 'not_used' },
    });
    expect(RELAY_VERSION).toMatch(/^\d+\.\d+\.\d+/);
    relay.clock.advance(90_000);
    const later = await relay.http().get('/api/v1/health').expect(200);
    expect(later.body.uptimeSeconds).toBeGreaterThanOrEqual(90);
    expect(await healthcheck(relay.port)).toBe(0);
  });

  it('503 { error } when the database does not answer; the container healthcheck fails', async () => {
    const dataSource = relay.app.get(DataSource);
    await dataSource.destroy();
    const res = await relay.http().get('/api/v1/health').expect(503);
    expect(res.body).toEqual({ error: 'Database unavailable' });
    expect(await healthcheck(relay.port)).toBe(1);
    // Liveness checks the process only: an orchestrator must not restart instances for a database outage.
    expect((await relay.http().get('/api/v1/health/live').expect(200)).body).toEqual({ status: 'ok' });
    await dataSource.initialize(); // so the relay closes normally
    await relay.http().get('/api/v1/health').expect(200);
  });

  it('503 naming the file store when the data folder is gone (an unmounted volume)', async () => {
    // Removed rather than made read-only: the tests may run as root, whom file modes do not stop.
    const tmp = join(relay.dataDir, 'tmp');
    rmSync(tmp, { recursive: true });
    try {
      const res = await relay.http().get('/api/v1/health').expect(503);
      expect(res.body).toEqual({ error: 'Storage unavailable' });
    } finally {
      mkdirSync(tmp);
    }
    await relay.http().get('/api/v1/health').expect(200);
  });

  it('the healthcheck fails when nothing listens', async () => {
    const port = relay.port;
    await relay.close();
    expect(await healthcheck(port)).toBe(1);
    relay = await startTestRelay();
  });
});

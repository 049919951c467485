import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { AgentDaemon } from '../../src/agent-daemon/agent-daemon';
import { ScheduledPurgesService } from '../../src/maintenance/scheduled-purges.service';
import { MetricsServer } from '../../src/metrics/metrics-server';
import { agentToken, startFakeAgent, TestPeer, until, wsUrl } from '../agents/agent-kit';
import { attachBuild, fixture } from '../support/build-fixtures';
import { MemberFactory, TestMember } from '../support/factory';
import { startTestRelay, TestRelay } from '../support/test-relay';
import { LoopbackListener } from '../webhooks/support/loopback-listener';
import { emitStatusChange, fastRetries } from '../webhooks/support/webhook-helpers';

/** One sample line of the Prometheus text format: name, labels, value. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses the text exposition format (what Prometheus reads): `# HELP`/`# TYPE` lines and samples. */
function parseExposition(text: string): { samples: Sample[]; types: Map<string, string> } {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (!line) continue;
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) types.set(type[1], type[2]);
    if (line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[key] = value;
    samples.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return { samples, types };
}

/** The value of the one sample with this name and (at least) these labels; undefined when absent. */
function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.value;
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('Prometheus metrics', () => {
  describe('off by default', () => {
    let relay: TestRelay;
    beforeAll(async () => (relay = await startTestRelay()));
    afterAll(() => relay.close());

    it('answers 404 in JSON at /metrics (not the dashboard), and opens no port of its own', async () => {
      const res = await relay.http().get('/metrics').expect(404);
      expect(res.body).toEqual({ error: 'Not found' });
      expect(relay.app.get(MetricsServer).port()).toBeNull();
    });
  });

  describe('with SVC_METRICS=1', () => {
    let relay: TestRelay;
    let members: MemberFactory;
    let qa: TestMember;
    let agent: AgentDaemon;
    let hooks: LoopbackListener;
    let configDir: string;

    beforeAll(async () => {
      hooks = await LoopbackListener.start();
      configDir = mkdtempSync(join(tmpdir(), 'svc-metrics-config-'));
      const config = join(configDir, 'svc.config.json');
      writeFileSync(
        config,
        JSON.stringify({
          webhooks: [{ url: `http://127.0.0.1:${hooks.port}/ok` }, { url: `http://127.0.0.1:${await closedPort()}/down` }],
        }),
      );
      relay = await startTestRelay({ SVC_METRICS: '1', SVC_CONFIG: config });
      members = new MemberFactory(relay);
      qa = await members.member('QA');
      agent = await startFakeAgent(relay, await agentToken(members), 'metrics-lab');
    });
    afterAll(async () => {
      await agent.stop();
      await relay.close();
      await hooks.close();
      rmSync(configDir, { recursive: true, force: true });
    });

    const scrape = async () => {
      const res = await request(relay.url).get('/metrics').buffer(true).parse(textParser).expect(200);
      expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
      return parseExposition(res.body as string);
    };

    it('counts HTTP requests by route template, method and status, with a latency histogram', async () => {
      const upload = await attachBuild(members.as(qa, 'post', '/api/v1/builds'), 'string-label.apk', { status: 'Backlog' }).expect(201);
      await members.as(qa, 'get', `/api/v1/builds/${upload.body.id}`).expect(200);
      await members.as(qa, 'get', `/api/v1/builds/${upload.body.id}`).expect(200);
      await members.as(qa, 'get', '/api/v1/builds/999999').expect(404);
      await relay.http().get('/api/v1/no-such-route').expect(404);
      const { samples, types } = await scrape();
      const route = '/api/v1/builds/:id';
      expect(valueOf(samples, 'svc_http_requests_total', { route, method: 'GET', status: '200' })).toBe(2);
      expect(valueOf(samples, 'svc_http_requests_total', { route, method: 'GET', status: '404' })).toBe(1);
      expect(valueOf(samples, 'svc_http_requests_total', { route: 'none', method: 'GET', status: '404' })).toBe(1);
      expect(valueOf(samples, 'svc_http_requests_total', { route: '/api/v1/builds', method: 'POST', status: '201' })).toBe(1);
      // the template, never the id: one series per route however many builds there are
      expect(samples.filter((s) => /\/builds\/\d/.test(s.labels.route ?? ''))).toEqual([]);
      expect(types.get('svc_http_request_duration_seconds')).toBe('histogram');
      expect(valueOf(samples, 'svc_http_request_duration_seconds_count', { route, method: 'GET', status: '200' })).toBe(2);
      expect(valueOf(samples, 'svc_http_request_duration_seconds_bucket', { route, method: 'GET', status: '200', le: '+Inf' })).toBe(2);
    });

    it('measures uploads, stored and refused, and counts builds by status at scrape time', async () => {
      const before = await scrape();
      const storedBefore = valueOf(before.samples, 'svc_build_upload_bytes_count', { outcome: 'stored' }) ?? 0;
      const bytesBefore = valueOf(before.samples, 'svc_build_upload_bytes_sum', { outcome: 'stored' }) ?? 0;
      await attachBuild(members.as(qa, 'post', '/api/v1/builds'), 'string-label.apk', { status: 'Done' }).expect(201);
      await members.as(qa, 'post', '/api/v1/builds').attach('file', Buffer.from('not an apk at all'), 'broken.apk').expect(400);
      const { samples } = await scrape();
      const size = readFileSync(fixture('string-label.apk')).length;
      expect(valueOf(samples, 'svc_build_upload_bytes_count', { outcome: 'stored' })).toBe(storedBefore + 1);
      expect(valueOf(samples, 'svc_build_upload_bytes_sum', { outcome: 'stored' })).toBe(bytesBefore + size);
      expect(valueOf(samples, 'svc_build_upload_duration_seconds_count', { outcome: 'refused' })).toBe(1);
      expect(valueOf(samples, 'svc_build_upload_bytes_sum', { outcome: 'refused' })).toBeGreaterThan(0);
      expect(valueOf(samples, 'svc_builds', { status: 'Done' })).toBe(1);
      expect(valueOf(samples, 'svc_builds', { status: 'Backlog' })).toBe(1);
      expect(valueOf(samples, 'svc_builds', { status: 'Rejected' })).toBe(0);
      expect(valueOf(samples, 'svc_builds', { status: 'none' })).toBe(0);
    });

    it('shows connected agents, their devices, device-session clients and agent request latency', async () => {
      const view = await members.pat(qa, 'view');
      await request(relay.url).get('/api/v1/sessions/fake-ios-metrics-lab/screenshot').set('Authorization', `Bearer ${view}`).expect(200);
      await request(relay.url).get('/api/v1/sessions/fake-ios-metrics-lab/ui-tree').set('Authorization', `Bearer ${view}`).expect(200);
      const client = new TestPeer(wsUrl(relay, '/api/v1/sessions/fake-ios-metrics-lab/connect'), { Authorization: `Bearer ${view}` });
      await client.opened;
      client.send({ type: 'request', id: 1, method: 'teleport', params: {} });
      await client.next((m) => m.json?.id === 1);
      const { samples } = await scrape();
      expect(valueOf(samples, 'svc_agents_connected')).toBe(1);
      expect(valueOf(samples, 'svc_devices', { state: 'booted' })).toBe(2);
      expect(valueOf(samples, 'svc_devices', { state: 'shutdown' })).toBe(1);
      expect(valueOf(samples, 'svc_device_session_clients')).toBe(1);
      expect(valueOf(samples, 'svc_agent_request_duration_seconds_count', { method: 'screenshot', outcome: 'ok' })).toBe(1);
      expect(valueOf(samples, 'svc_agent_request_duration_seconds_count', { method: 'ui_tree', outcome: 'ok' })).toBe(1);
      // a method the relay does not know is `other`, so clients cannot mint series
      expect(valueOf(samples, 'svc_agent_request_duration_seconds_count', { method: 'other', outcome: 'error' })).toBe(1);
      client.close();
    });

    it('counts webhook deliveries by outcome, with their latency', async () => {
      fastRetries(relay, [50, 50]);
      emitStatusChange(relay, 'In Progress', 'Done');
      await until(() => hooks.hits.length === 1, 10_000);
      let samples: Sample[] = [];
      for (let i = 0; i < 200; i++) {
        samples = (await scrape()).samples;
        if (valueOf(samples, 'svc_webhook_deliveries_total', { outcome: 'failed' })) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(valueOf(samples, 'svc_webhook_deliveries_total', { outcome: 'delivered' })).toBe(1);
      expect(valueOf(samples, 'svc_webhook_deliveries_total', { outcome: 'retrying' })).toBe(2);
      expect(valueOf(samples, 'svc_webhook_deliveries_total', { outcome: 'failed' })).toBe(1);
      expect(valueOf(samples, 'svc_webhook_delivery_duration_seconds_count', { outcome: 'delivered' })).toBe(1);
    });

    it('counts purge and sweep runs by job and outcome, and exposes process metrics', async () => {
      const before = valueOf((await scrape()).samples, 'svc_maintenance_runs_total', { job: 'expired_sessions', outcome: 'ok' }) ?? 0;
      await relay.app.get(ScheduledPurgesService).runAll();
      const { samples } = await scrape();
      expect(valueOf(samples, 'svc_maintenance_runs_total', { job: 'expired_sessions', outcome: 'ok' })).toBe(before + 1);
      expect(valueOf(samples, 'svc_maintenance_runs_total', { job: 'orphan_build_files', outcome: 'ok' })).toBeGreaterThan(0);
      expect(valueOf(samples, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
      expect(valueOf(samples, 'process_resident_memory_bytes')).toBeGreaterThan(0);
      expect(samples.some((s) => s.name === 'nodejs_eventloop_lag_seconds')).toBe(true);
    });

    it('exposes every series the Grafana dashboard in docs/ queries', async () => {
      const dashboard = JSON.parse(readFileSync(join(__dirname, '..', '..', 'docs', 'grafana-dashboard.json'), 'utf8'));
      const exprs: string[] = dashboard.panels.flatMap((p: { targets?: { expr: string }[] }) => (p.targets ?? []).map((t) => t.expr));
      const queried = new Set(exprs.flatMap((e) => e.match(/\b(?:svc|process|nodejs)_[a-z0-9_]+/g) ?? []));
      expect(queried.size).toBeGreaterThan(10);
      const exposed = new Set((await scrape()).samples.map((s) => s.name));
      expect([...queried].filter((name) => !exposed.has(name))).toEqual([]);
    });
  });

  describe('on a port of its own (SVC_METRICS_PORT)', () => {
    let relay: TestRelay;
    beforeAll(async () => (relay = await startTestRelay({ SVC_METRICS: '1', SVC_METRICS_PORT: '0' })));
    afterAll(() => relay.close());

    it('serves /metrics there only: the relay port answers 404, other paths there 404', async () => {
      const port = relay.app.get(MetricsServer).port();
      expect(port).toEqual(expect.any(Number));
      const metrics = `http://127.0.0.1:${port}`;
      const res = await request(metrics).get('/metrics').buffer(true).parse(textParser).expect(200);
      expect(parseExposition(res.body as string).samples.some((s) => s.name === 'svc_agents_connected')).toBe(true);
      await request(metrics).get('/api/v1/health').expect(404);
      await relay.http().get('/metrics').expect(404);
    });
  });
});

function textParser(res: request.Response, done: (err: Error | null, body: string) => void): void {
  const stream = res as unknown as NodeJS.ReadableStream;
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  stream.on('end', () => done(null, text));
}

import type { RelayConfig } from '../config/relay-config';
import { RelayMetrics } from './relay-metrics';

const withMetrics = (enabled: boolean) => ({ metrics: { enabled } }) as RelayConfig;

describe('RelayMetrics', () => {
  it('records nothing and has nothing to expose while /metrics is off', async () => {
    const metrics = new RelayMetrics(withMetrics(false));
    metrics.httpRequest('/api/v1/builds', 'GET', 200, 0.01);
    metrics.gauge('svc_test_gauge', 'a gauge', [], () => 1);
    await expect(metrics.exposition()).rejects.toThrow('not enabled');
  });

  it('records each series while /metrics is on', async () => {
    const metrics = new RelayMetrics(withMetrics(true));
    metrics.httpRequest('/api/v1/builds', 'GET', 200, 0.01);
    metrics.maintenanceRun('purge', 'ok');
    metrics.gauge('svc_test_gauge', 'a gauge', [], () => 3);
    const { body } = await metrics.exposition();
    expect(body).toContain('svc_http_requests_total{route="/api/v1/builds",method="GET",status="200"} 1');
    expect(body).toContain('svc_maintenance_runs_total{job="purge",outcome="ok"} 1');
    expect(body).toContain('svc_test_gauge 3');
  });
});

/**
 * The list benchmarks' load in turns (bench/support/list-bench.ts loadRounds): a slow server's
 * answers come in waves, so a turn records until it has its minimum of answers; a side's turns are
 * pooled into one run. A pooled figure that mixed its turns up would give a verdict on nothing.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pooled, type Measured } from '../../bench/support/list-bench';
import { runLoad } from '../../bench/support/relay';

function turn(latencies: number[], seconds: number, completed: number, cpuMsPerRequest: number, statuses: Record<string, number> = { '200': latencies.length }): Measured {
  return {
    requests: latencies.length,
    seconds,
    rps: latencies.length / seconds,
    p50: NaN,
    p99: NaN,
    max: NaN,
    statuses,
    errors: 0,
    completed,
    cpuMsPerRequest,
    helperCpuMsPerRequest: NaN,
    latencies,
  };
}

describe('a side of a list benchmark in turns', () => {
  it('pools its turns: answers over their seconds, percentiles over every latency, CPU over every answer', () => {
    const first = turn([1, 2, 3, 4], 2, 10, 0.5);
    const second = turn([10, 20, 30, 40, 50, 60], 1, 30, 1, { '200': 5, '503': 1 });
    const side = pooled(first, second);
    expect(side.requests).toBe(10);
    expect(side.seconds).toBe(3);
    expect(side.rps).toBeCloseTo(10 / 3);
    // Sorted together: 1 2 3 4 10 20 30 40 50 60.
    expect(side.p50).toBe(20);
    expect(side.p99).toBe(60);
    expect(side.max).toBe(60);
    expect(side.completed).toBe(40);
    // 10 answers at 0.5 ms and 30 at 1 ms.
    expect(side.cpuMsPerRequest).toBeCloseTo((10 * 0.5 + 30 * 1) / 40);
    expect(side.statuses).toEqual({ '200': 9, '503': 1 });
  });

  describe('a turn against a slow server', () => {
    let server: Server;
    let port: number;
    beforeAll(async () => {
      server = createServer((_req, res) => setTimeout(() => res.end('ok'), 150));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
    });
    afterAll(() => new Promise((resolve) => server.close(resolve)));

    it('records past its seconds until it has its minimum of answers, and hands back every latency in order', async () => {
      // 4 connections answered every 150 ms: a 0.1 s window holds one wave at most.
      const result = await runLoad({ port, paths: ['/'], connections: 4, seconds: 0.1, warmupSeconds: 0, minAnswers: 12, maxSeconds: 10, keepLatencies: true });
      expect(result.requests).toBeGreaterThanOrEqual(12);
      expect(result.latencies).toHaveLength(result.requests);
      expect(result.latencies).toEqual([...result.latencies!].sort((a, b) => a - b));
      expect(result.statuses).toEqual({ '200': result.requests });
    });

    it('stops at its longest even short of the minimum', async () => {
      const result = await runLoad({ port, paths: ['/'], connections: 1, seconds: 0.1, warmupSeconds: 0, minAnswers: 1000, maxSeconds: 0.5 });
      expect(result.requests).toBeGreaterThan(0);
      expect(result.requests).toBeLessThan(1000);
      expect(result.latencies).toBeUndefined();
    });
  });
});

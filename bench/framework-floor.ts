/**
 * bench/framework-floor (issue 42 item 1): what the relay's HTTP stack costs per request before any
 * of the relay's own work. One tiny authenticated JSON answer (GET /builds of a page past the end,
 * `{"items":[],…}`) from BENCH_CONNECTIONS (32) keep-alive connections, BENCH_SECONDS (3) after 1 s
 * of warm-up, BENCH_ROUNDS (5) rounds, the servers' order rotating each round:
 * - the relay (dist/, as `npm start` runs it, on an empty data folder, a PAT), with its request log
 *   (the default level, info) and without it (SVC_LOG_LEVEL=warn); with BENCH_RELAY_B_ENV='{"NAME":"value"}'
 *   a third relay with that environment, and with BENCH_RELAY_B_CHECKOUT=<dir> that checkout's dist/
 *   (built beforehand): an A/B of a setting or of a change. The relay started first runs faster than
 *   the others by as much as a change may gain (bench/results/2026-12-04-82bf0a0-layers-vs-floor.md):
 *   run each A/B twice, the sides swapped (from the other checkout), and take both;
 * - bench/baselines/framework-floor-server.ts: NestJS on its Express adapter with a global guard
 *   and one route, Express 5 alone, node:http alone (each checks the bearer token's SHA-256);
 * - with BENCH_FASTIFY_DIR, bench/baselines/framework-floor-fastify.ts: the same on NestJS's Fastify
 *   adapter, and Fastify alone. Fastify is not the relay's: install it in a folder of its own at the
 *   relay's NestJS version, e.g. `mkdir /tmp/fx && cd /tmp/fx && npm init -y && npm i --ignore-scripts
 *   @nestjs/core@11.2.10 @nestjs/common@11.2.10 @nestjs/platform-fastify@11 reflect-metadata rxjs`
 *   (the bench refuses a folder whose @nestjs/core is another version). Unset: skipped, saying so.
 * Prints each server's medians (answers/s, p50, p99, CPU µs per answer from /proc) and each as a
 * ratio to node:http's answers/s: the share of the floor's rate a server on that stack can reach at
 * best. No target of its own: it bounds issue 42's ratios for the smallest answers.
 * Run: npx ts-node --transpile-only bench/framework-floor.ts
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildRelay, freePort, issuePat, median, runLoad, startBaseline, startRelay, stopChild, type LoadResult } from './support/relay';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const FLOOR_TOKEN = 'svc_pat_framework-floor-token';
const PATH = '/api/v1/builds?page=1000';

interface Side {
  name: string;
  port: number;
  pid: number;
  token: string;
  runs: LoadResult[];
}

async function main(): Promise<void> {
  buildRelay();
  const work = mkdtempSync(join(tmpdir(), 'svc-bench-framework-'));
  const children: ChildProcess[] = [];
  const sides: Side[] = [];
  try {
    for (const [name, env] of [
      ['relay', {}],
      ['relay, no request log', { SVC_LOG_LEVEL: 'warn' }],
      ...(process.env.BENCH_RELAY_B_ENV || process.env.BENCH_RELAY_B_CHECKOUT
        ? [['relay B', JSON.parse(process.env.BENCH_RELAY_B_ENV ?? '{}') as Record<string, string>] as const]
        : []),
    ] as const) {
      const checkout = name === 'relay B' ? process.env.BENCH_RELAY_B_CHECKOUT : undefined;
      const relay = await startRelay(join(work, name.replace(/\W+/g, '-')), env, [], checkout);
      children.push(relay.child);
      sides.push({ name, port: relay.port, pid: relay.child.pid!, token: await issuePat(relay.base), runs: [] });
    }
    for (const kind of ['nest', 'express', 'node']) {
      const port = await freePort();
      const child = await startBaseline('framework-floor-server.ts', [kind], port);
      children.push(child);
      sides.push({ name: kind === 'nest' ? 'NestJS + Express, a guard' : kind === 'express' ? 'Express 5' : 'node:http', port, pid: child.pid!, token: FLOOR_TOKEN, runs: [] });
    }
    const fastifyDir = process.env.BENCH_FASTIFY_DIR;
    if (!fastifyDir) console.log('NestJS on Fastify: SKIPPED (BENCH_FASTIFY_DIR unset; the header says how to make one)');
    else {
      const theirs = (JSON.parse(readFileSync(join(fastifyDir, 'node_modules', '@nestjs', 'core', 'package.json'), 'utf8')) as { version: string }).version;
      const ours = (require('@nestjs/core/package.json') as { version: string }).version;
      if (theirs !== ours) throw new Error(`BENCH_FASTIFY_DIR has @nestjs/core ${theirs}, the relay ${ours}: install the relay's version there`);
      for (const kind of ['nest-fastify', 'fastify']) {
        const port = await freePort();
        const child = await startBaseline('framework-floor-fastify.ts', [fastifyDir, kind], port);
        children.push(child);
        sides.push({ name: kind === 'fastify' ? 'Fastify 5' : 'NestJS + Fastify, a guard', port, pid: child.pid!, token: FLOOR_TOKEN, runs: [] });
      }
    }
    console.log(`load average before ${loadavg().map((n) => n.toFixed(2)).join(' ')}`);
    for (let round = 0; round < ROUNDS; round++) {
      const order = sides.map((_, i) => sides[(i + round) % sides.length]);
      for (const side of order) {
        const result = await runLoad({ port: side.port, serverPid: side.pid, paths: [PATH], headers: { Authorization: `Bearer ${side.token}` }, connections: CONNECTIONS, seconds: SECONDS });
        const other = Object.keys(result.statuses).filter((s) => s !== '200');
        if (other.length) throw new Error(`${side.name} answered ${JSON.stringify(result.statuses)}`);
        side.runs.push(result);
      }
      console.log(`round ${round + 1}/${ROUNDS} done (load ${loadavg()[0].toFixed(2)})`);
    }
    const node = median(sides.find((s) => s.name === 'node:http')!.runs.map((r) => r.rps));
    console.log(`\nGET ${PATH} (a page past the end), ${CONNECTIONS} connections, median of ${ROUNDS} x ${SECONDS} s`);
    console.log(`${'server'.padEnd(28)} answers/s  p50 ms  p99 ms  cpu µs/answer  ÷ node:http answers/s`);
    for (const side of sides) {
      const rps = median(side.runs.map((r) => r.rps));
      const cells = [
        rps.toFixed(0).padStart(9),
        median(side.runs.map((r) => r.p50)).toFixed(2).padStart(7),
        median(side.runs.map((r) => r.p99)).toFixed(2).padStart(7),
        (median(side.runs.map((r) => r.cpuMsPerRequest)) * 1000).toFixed(1).padStart(14),
        (rps / node).toFixed(3).padStart(22),
      ];
      console.log(`${side.name.padEnd(28)}${cells.join(' ')}`);
    }
    console.log(`load average after ${loadavg().map((n) => n.toFixed(2)).join(' ')}`);
  } finally {
    for (const child of children.reverse()) await stopChild(child);
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

/**
 * bench/screenshot: a 1 MiB PNG screenshot through the device relay (`GET /api/v1/sessions/:id/
 * screenshot`: client → relay over HTTP, relay → agent over its WebSocket, the PNG back in one binary
 * frame, relay → client), against the baseline measured in the same run: the same agents answering
 * the same bytes directly over plain HTTP, without the relay (bench/support/screenshot-agents.js).
 *   - 1 client: p50 of relay minus p50 of direct = what the relay adds (target ≤ 3 ms);
 *   - BENCH_AGENTS (8) clients over as many agents, one device each: relay screenshots/s ÷ direct
 *     (target ≥ 0.70).
 * BENCH_SECONDS (4, after 1 s of warm-up) per run, BENCH_ROUNDS (3) rounds, medians printed, with
 * the relay's CPU time per screenshot and its peak RSS. BENCH_PROFILE=<dir> writes a CPU profile of the relay.
 * Run: npm run bench:screenshot   (not part of npm test)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { Worker } from 'node:worker_threads';
import { pngChunk } from '../src/agent-daemon/backends/png-image';
import { buildRelay, issuePats, LoadResult, median, MB, peakRssKb, runLoad, startRelay } from './support/relay';

const AGENTS = Number(process.env.BENCH_AGENTS ?? 8);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PROFILE_DIR = process.env.BENCH_PROFILE;

/** A 1 MiB PNG (noise, stored uncompressed, so it stays 1 MiB): what a phone screen capture weighs. */
function noisePng(bytes: number): Buffer {
  const width = 512;
  const height = Math.ceil(bytes / (1 + width * 3));
  const raw = Buffer.alloc(height * (1 + width * 3));
  for (let i = 0; i < raw.length; i++) raw[i] = (i * 2654435761) >>> 24;
  for (let y = 0; y < height; y++) raw[y * (1 + width * 3)] = 0; // filter byte: none
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', deflateSync(raw, { level: 0 })),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

function startAgents(relayPort: number, token: string, png: Buffer): Promise<{ directPort: number; worker: Worker }> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(join(__dirname, 'support', 'screenshot-agents.js'), {
      workerData: { relayPort, token, count: AGENTS, png },
    });
    worker.once('message', ({ directPort }: { directPort: number }) => resolve({ directPort, worker }));
    worker.once('error', reject);
  });
}

/** Until every agent's device answers through the relay (the device lists arrive asynchronously). */
async function waitForDevices(base: string, viewToken: string, bytes: number): Promise<void> {
  for (let i = 0; i < AGENTS; i++) {
    for (let attempt = 0; ; attempt++) {
      const res = await fetch(`${base}/sessions/bench-${i}/screenshot`, { headers: { Authorization: `Bearer ${viewToken}` } });
      const body = Buffer.from(await res.arrayBuffer());
      if (res.status === 200 && body.length === bytes) break;
      if (attempt > 200) throw new Error(`bench-${i}: ${res.status} ${body.length} bytes`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'svc-bench-shot-'));
  const png = noisePng(MB);
  let agents: Worker | null = null;
  const relay = await (buildRelay(), startRelay(join(work, 'data'), {}, PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : []));
  try {
    const [agentToken, viewToken] = await issuePats(relay.base, ['agent', 'view']);
    const started = await startAgents(relay.port, agentToken, png);
    agents = started.worker;
    await waitForDevices(relay.base, viewToken, png.length);
    const sessions = Array.from({ length: AGENTS }, (_, i) => `bench-${i}`);
    const through = (connections: number) =>
      runLoad({
        serverPid: relay.child.pid,
        port: relay.port,
        paths: sessions.map((s) => `/api/v1/sessions/${s}/screenshot`),
        headers: { Authorization: `Bearer ${viewToken}` },
        connections,
        seconds: SECONDS,
      });
    const direct = (connections: number) =>
      runLoad({ port: started.directPort, paths: sessions.map((s) => `/screenshot/${s}`), connections, seconds: SECONDS });

    const runs: Record<string, LoadResult[]> = { relay1: [], direct1: [], relayN: [], directN: [] };
    for (let round = 0; round < ROUNDS; round++) {
      runs.relay1.push(await through(1));
      runs.direct1.push(await direct(1));
      runs.relayN.push(await through(AGENTS));
      runs.directN.push(await direct(AGENTS));
    }
    for (const [name, results] of Object.entries(runs)) {
      const bad = results.filter((r) => r.errors || Object.keys(r.statuses).some((s) => s !== '200'));
      if (bad.length) throw new Error(`${name}: answers other than 200: ${JSON.stringify(bad.map((r) => [r.statuses, r.errors]))}`);
    }
    const med = (name: string, pick: (r: LoadResult) => number) => median(runs[name].map(pick));
    const overhead = med('relay1', (r) => r.p50) - med('direct1', (r) => r.p50);
    const ratio = med('relayN', (r) => r.rps) / med('directN', (r) => r.rps);
    console.log(`load average: ${loadavg().map((l) => l.toFixed(1)).join(' ')}; ${(png.length / MB).toFixed(2)} MiB PNG; median of ${ROUNDS} rounds × ${SECONDS} s`);
    console.log('| clients | relay /s | relay p50 | relay p99 | relay CPU/shot | direct /s | direct p50 | direct p99 | ratio |');
    console.log('|---|---|---|---|---|---|---|---|---|');
    for (const [clients, r, d] of [
      [1, 'relay1', 'direct1'],
      [AGENTS, 'relayN', 'directN'],
    ] as const) {
      console.log(
        `| ${clients} | ${med(r, (x) => x.rps).toFixed(0)} | ${med(r, (x) => x.p50).toFixed(1)} ms | ${med(r, (x) => x.p99).toFixed(1)} ms | ` +
          `${med(r, (x) => x.cpuMsPerRequest).toFixed(2)} ms | ${med(d, (x) => x.rps).toFixed(0)} | ${med(d, (x) => x.p50).toFixed(1)} ms | ` +
          `${med(d, (x) => x.p99).toFixed(1)} ms | ${(med(r, (x) => x.rps) / med(d, (x) => x.rps)).toFixed(2)} |`,
      );
    }
    console.log(`1 client: the relay adds ${overhead.toFixed(2)} ms at p50 (target ≤ 3 ms) ${overhead <= 3 ? 'OK' : 'MISS'}`);
    console.log(`${AGENTS} clients over ${AGENTS} agents: ${ratio.toFixed(2)} of direct (target ≥ 0.70) ${ratio >= 0.7 ? 'OK' : 'MISS'}`);
    console.log(`relay peak RSS: ${((peakRssKb(relay.child.pid!) ?? NaN) / 1024).toFixed(0)} MB`);
  } finally {
    await agents?.terminate();
    await relay.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

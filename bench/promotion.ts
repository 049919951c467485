/**
 * bench/promotion (`npx ts-node --transpile-only bench/promotion.ts`): how many bytes a request leaves
 * for V8's old generation, relay against the list's floor (bench/baselines/list-server.ts), SQLite.
 * What survives a young collection is promoted and paid for again by the full collections; a
 * request that lives a few milliseconds should leave next to nothing there. Each side is started
 * with the inspector on loopback and loaded on BENCH_PATH (default: a page past the end of an
 * empty list) from 32 connections for BENCH_SECONDS (10) after 5 s of warm-up, while V8's sampling
 * heap profiler keeps the allocations a young collection did not free (HeapProfiler.startSampling,
 * includeObjectsCollectedByMinorGC false). Prints bytes a request and the allocation sites that
 * left most. The sampling also keeps young objects a full collection freed: for the amount, read
 * `--trace-gc-nvp`'s `promoted=` (BENCH_NODE_ARGS). Issue 42: bench/results/2026-12-05-2823d6d-promotion.md and
 * 2026-12-05-d41297d-pretenuring.md (V8's allocation-site pretenuring, now off).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { prepare } from './support/million-seed';
import { buildRelay, freePort, runLoad, startBaseline, startRelay, stopChild } from './support/relay';

const PATH = process.env.BENCH_PATH ?? '/api/v1/builds?page=1000';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const INSPECTOR_PORT = 9239;

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: ProfileNode[];
}

/** One CDP session on the child's inspector: sampling on, the load, sampling off; the profile's tree. */
async function sampledDuring(load: () => Promise<unknown>): Promise<ProfileNode> {
  const [target] = (await (await fetch(`http://127.0.0.1:${INSPECTOR_PORT}/json/list`)).json()) as { webSocketDebuggerUrl: string }[];
  const socket = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((resolve) => socket.once('open', resolve));
  let id = 0;
  const answers = new Map<number, (result: unknown) => void>();
  socket.on('message', (data) => {
    const message = JSON.parse(data.toString()) as { id?: number; result?: unknown };
    if (message.id !== undefined) answers.get(message.id)?.(message.result);
  });
  const send = <T>(method: string, params: object = {}) =>
    new Promise<T>((resolve) => {
      answers.set(++id, resolve as (result: unknown) => void);
      socket.send(JSON.stringify({ id, method, params }));
    });
  await send('HeapProfiler.enable');
  await send('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: false });
  await load();
  const { profile } = await send<{ profile: { head: ProfileNode } }>('HeapProfiler.stopSampling');
  socket.close();
  return profile.head;
}

function report(label: string, head: ProfileNode, answers: number): void {
  const bySite = new Map<string, number>();
  let total = 0;
  const walk = (node: ProfileNode) => {
    const { functionName, url, lineNumber } = node.callFrame;
    const site = `${functionName || '(anonymous)'} ${url.split('/').slice(-2).join('/')}:${lineNumber + 1}`;
    bySite.set(site, (bySite.get(site) ?? 0) + node.selfSize);
    total += node.selfSize;
    node.children.forEach(walk);
  };
  walk(head);
  console.log(`\n${label}: ${answers} answers, ${(total / answers).toFixed(0)} bytes a request left past a young collection`);
  for (const [site, bytes] of [...bySite].sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log(`${(bytes / answers).toFixed(0).padStart(8)} B  ${site}`);
}

async function measure(label: string, start: () => Promise<{ port: number; stop: () => Promise<void> }>, headers: Record<string, string>): Promise<void> {
  const side = await start();
  try {
    await runLoad({ port: side.port, paths: [PATH], headers, connections: 32, seconds: 5 });
    let answers = 0;
    const head = await sampledDuring(async () => {
      answers = (await runLoad({ port: side.port, paths: [PATH], headers, connections: 32, seconds: SECONDS })).completed;
    });
    report(label, head, answers);
  } finally {
    await side.stop();
  }
}

async function main(): Promise<void> {
  buildRelay();
  const work = mkdtempSync(join(tmpdir(), 'svc-bench-promotion-'));
  try {
    const dataDir = join(work, 'data');
    const headers = { Authorization: `Bearer ${await prepare(dataDir, {})}` };
    const inspect = [`--inspect=127.0.0.1:${INSPECTOR_PORT}`];
    await measure('relay', async () => startRelay(dataDir, {}, inspect), headers);
    await measure('floor', async () => {
      const port = await freePort();
      const child = await startBaseline('list-server.ts', [join(dataDir, 'svc.sqlite')], port, inspect);
      return { port, stop: () => stopChild(child) };
    }, headers);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

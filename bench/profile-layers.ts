/**
 * bench/profile-layers (issue 42 item 1): where a relay's CPU goes, per layer of a request.
 * Reads a V8 CPU profile (`BENCH_PROFILE=<dir> npm run bench:soak`, bench:list, bench:million) and
 * gives every sample outside start-up to one layer: the innermost frame on its stack that a rule
 * below names decides, Node's own frames last (so a socket write under the JSON logger is logging's,
 * under the response's end the framework's). Prints ms and share per layer and, given the CPU per
 * request the run measured (from /proc: the profile samples wall time, which on a loaded machine
 * includes time spent preempted in system calls), µs of CPU per request per layer; `--json <file>`
 * keeps the summary for bench/results/.
 * Run: npx ts-node --transpile-only bench/profile-layers.ts <profile.cpuprofile> [--cpu-ms-per-request 2.0] [--json out.json]
 */
import { readFileSync, writeFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Layers in the order a request meets them; the first rule matching a frame's file (then its function) wins. */
const LAYERS: [string, RegExp][] = [
  ['start-up (module loading, Nest bootstrap)', /internal\/modules\/cjs\/loader|nest-application-context|instance-loader|injector\/|scanner\.js|metadata-builder|ConnectionMetadataBuilder/],
  ['logging and metrics', /\/logging\/|\/metrics\/|prom-client|console-logger|logger\.service/],
  ['authentication and guards', /\/auth\/|\/common\/auth\/|\/tokens\/|guards-consumer|bcrypt|password-/],
  ['validation and pipes', /class-validator|class-transformer|\/common\/validation\/|pipes-consumer|validation\.pipe|\/dto\//],
  ['data layer (statements, drivers, transactions)', /typeorm|better-sqlite3|\/pg\/|node_modules\/pg|kysely|\/database\/|\.repository\.js|\/platform\/typeorm\//],
  ['mapping and serialization', /\.mapper\.js|class-serializer|interceptors-consumer|JSON\.stringify/],
  ['WebSocket to agents (the hub, screenshots, video)', /\/ws\/lib\/|\/dist\/agents\//],
  ['router and framework (express, Nest, body parsing)', /node_modules\/express|node_modules\/router|body-parser|raw-body|@nestjs\/|\/platform\/express\/|\/bootstrap\/|\/common\/net\/|on-finished|finalhandler|send\/index/],
  ['handler and services', /\/dist\//],
  ["Node's HTTP and sockets", /^node:(_http|net|internal\/(stream|http|net|streams))/],
];
const GC = '(garbage collector)';
/** Native writes to a socket or pipe: the kernel's time (on loopback it delivers to the reader too), apart from whoever wrote. */
const WRITES = new Set(['writev', 'writeUtf8String', 'writeBuffer', 'writeLatin1String', 'writeAsciiString']);
const KERNEL_WRITES = 'socket and pipe writes (the kernel)';
const IDLE = new Set(['(idle)', '(program)', '(root)']);

function layerOf(stack: ProfileNode[]): string {
  // Start-up is told by any frame of the stack (its work runs under the loader at the bottom).
  if (stack.some((n) => LAYERS[0][1].test(n.callFrame.url))) return LAYERS[0][0];
  // Node's own frames decide only when nothing of the relay or its dependencies is on the stack.
  const own = LAYERS.slice(1, -1);
  for (const node of stack) {
    const where = node.callFrame.url || node.callFrame.functionName;
    for (const [name, rule] of own) if (rule.test(where)) return name;
  }
  const [nodeLayer, nodeRule] = LAYERS[LAYERS.length - 1];
  return stack.some((n) => nodeRule.test(n.callFrame.url)) ? nodeLayer : 'other (native, timers, promises)';
}

function summarise(profile: CpuProfile): Map<string, number> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + profile.timeDeltas[i]));
  const layers = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const leaf = byId.get(id)!;
    if (IDLE.has(leaf.callFrame.functionName)) continue;
    let layer: string;
    if (leaf.callFrame.functionName === GC) layer = 'garbage collection';
    else if (WRITES.has(leaf.callFrame.functionName) && !leaf.callFrame.url) layer = KERNEL_WRITES;
    else {
      const stack: ProfileNode[] = [];
      for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) stack.push(byId.get(at)!);
      layer = layerOf(stack);
    }
    layers.set(layer, (layers.get(layer) ?? 0) + us);
  }
  return layers;
}

function main(): void {
  const args = process.argv.slice(2);
  const file = args.find((a) => !a.startsWith('--') && !/^\d+$/.test(a) && !a.endsWith('.json'));
  if (!file) throw new Error('usage: profile-layers <profile.cpuprofile> [--requests N] [--json out.json]');
  const option = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
  const cpuMsPerRequest = Number(option('--cpu-ms-per-request') ?? 0);
  const layers = summarise(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile);
  const startUp = layers.get(LAYERS[0][0]) ?? 0;
  const serving = [...layers].filter(([name]) => name !== LAYERS[0][0]).sort((a, b) => b[1] - a[1]);
  const total = serving.reduce((sum, [, us]) => sum + us, 0);
  console.log(`${file}: ${(total / 1000).toFixed(0)} ms sampled serving (start-up ${(startUp / 1000).toFixed(0)} ms left out)${cpuMsPerRequest ? `, ${cpuMsPerRequest} ms of CPU a request` : ''}`);
  const rows = serving.map(([layer, us]) => ({ layer, ms: us / 1000, share: us / total, usPerRequest: cpuMsPerRequest ? (us / total) * cpuMsPerRequest * 1000 : null }));
  for (const row of rows) {
    console.log(`${row.layer.padEnd(52)} ${row.ms.toFixed(0).padStart(7)} ms ${(row.share * 100).toFixed(1).padStart(5)} %${row.usPerRequest === null ? '' : ` ${row.usPerRequest.toFixed(0).padStart(6)} µs/request`}`);
  }
  const out = option('--json');
  if (out) writeFileSync(out, JSON.stringify({ profile: file, cpuMsPerRequest: cpuMsPerRequest || null, servingMs: total / 1000, startUpMs: startUp / 1000, layers: rows }, null, 1) + '\n');
}

main();

/**
 * bench/profile-layers (issue 42 item 1): where a relay's CPU goes, per layer of a request.
 * Reads a V8 CPU profile (`BENCH_PROFILE=<dir> npm run bench:soak`, bench:list, bench:million) and
 * gives every sample outside start-up to one layer: the innermost frame on its stack that a rule
 * below names decides, Node's own frames last (so a socket write under the JSON logger is logging's,
 * under the response's end the framework's). Prints ms and share per layer and, given the CPU per
 * request the run measured (from /proc: the profile samples wall time, which on a loaded machine
 * includes time spent preempted in system calls), µs of CPU per request per layer; `--json <file>`
 * keeps the summary for bench/results/.
 * `--top <layer>` (the start of a layer's name) also lists the frames that layer's time was spent in;
 * `--floor <profile> --floor-cpu-ms-per-request N` reads the soak floor's profile (BENCH_PROFILE writes it
 * in <dir>/floor) by the same rules and sets its µs a request beside the relay's, layer by layer.
 * Run: npx ts-node --transpile-only bench/profile-layers.ts <profile.cpuprofile> [--cpu-ms-per-request 2.0] [--json out.json] [--top data]
 *        [--floor <floor.cpuprofile> --floor-cpu-ms-per-request 0.8]
 */
import { readFileSync, writeFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber?: number };
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
  ['data layer (statements, drivers, transactions)', /typeorm|better-sqlite3|\/pg\/|node_modules\/pg|kysely|\/database\/|\.repository\.[jt]s|baselines\/soak-db|\/platform\/typeorm\//],
  ['mapping and serialization', /\.mapper\.js|class-serializer|interceptors-consumer|JSON\.stringify/],
  ['WebSocket to agents (the hub, screenshots, video)', /\/ws\/lib\/|\/dist\/agents\//],
  ['router and framework (express, Nest, body parsing)', /node_modules\/express|node_modules\/router|body-parser|raw-body|@nestjs\/|\/platform\/express\/|\/bootstrap\/|\/common\/net\/|on-finished|finalhandler|send\/index/],
  // The relay's own code (dist/); the soak floor's (bench/baselines/ and the src/ files it imports).
  ['handler and services', /^(?!.*node_modules).*(\/dist\/|\/bench\/baselines\/|\/src\/)/],
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

/** Where a sample was spent, for `--top`: its innermost frame with a file (a native leaf is named after its caller). */
function frameLabel(stack: ProfileNode[]): string {
  const leaf = stack[0].callFrame;
  const own = stack.find((n) => n.callFrame.url)?.callFrame;
  const where = own ? `${own.functionName || '(anonymous)'} ${own.url.replace(/^.*?\/(node_modules|dist|src|bench)\//, '$1/')}:${(own.lineNumber ?? 0) + 1}` : '';
  return leaf.url ? where : `${leaf.functionName} ← ${where}`;
}

function summarise(profile: CpuProfile, frames?: Map<string, number>, topLayer?: string): Map<string, number> {
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
    const stack: ProfileNode[] = [];
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) stack.push(byId.get(at)!);
    if (leaf.callFrame.functionName === GC) layer = 'garbage collection';
    else if (WRITES.has(leaf.callFrame.functionName) && !leaf.callFrame.url) layer = KERNEL_WRITES;
    else layer = layerOf(stack);
    layers.set(layer, (layers.get(layer) ?? 0) + us);
    if (frames && topLayer && layer.startsWith(topLayer)) frames.set(frameLabel(stack), (frames.get(frameLabel(stack)) ?? 0) + us);
  }
  return layers;
}

interface LayerRow {
  layer: string;
  ms: number;
  share: number;
  usPerRequest: number | null;
}

/** A profile's serving time by layer, largest first, and (given the run's CPU a request) µs a request each. */
function layerRows(file: string, cpuMsPerRequest: number, frames?: Map<string, number>, topLayer?: string) {
  const layers = summarise(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile, frames, topLayer);
  const startUp = layers.get(LAYERS[0][0]) ?? 0;
  const serving = [...layers].filter(([name]) => name !== LAYERS[0][0]).sort((a, b) => b[1] - a[1]);
  const total = serving.reduce((sum, [, us]) => sum + us, 0);
  const rows: LayerRow[] = serving.map(([layer, us]) => ({ layer, ms: us / 1000, share: us / total, usPerRequest: cpuMsPerRequest ? (us / total) * cpuMsPerRequest * 1000 : null }));
  return { total, startUp, rows };
}

function main(): void {
  const args = process.argv.slice(2);
  const option = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
  const file = args.find((a, i) => !a.startsWith('--') && !args[i - 1]?.startsWith('--'));
  if (!file) {
    throw new Error('usage: profile-layers <profile.cpuprofile> [--cpu-ms-per-request N] [--json out.json] [--top <layer name start>] [--floor <floor.cpuprofile> --floor-cpu-ms-per-request N]');
  }
  const cpuMsPerRequest = Number(option('--cpu-ms-per-request') ?? 0);
  const frames = new Map<string, number>();
  const { total, startUp, rows } = layerRows(file, cpuMsPerRequest, frames, option('--top'));
  console.log(`${file}: ${(total / 1000).toFixed(0)} ms sampled serving (start-up ${(startUp / 1000).toFixed(0)} ms left out)${cpuMsPerRequest ? `, ${cpuMsPerRequest} ms of CPU a request` : ''}`);
  for (const row of rows) {
    console.log(`${row.layer.padEnd(52)} ${row.ms.toFixed(0).padStart(7)} ms ${(row.share * 100).toFixed(1).padStart(5)} %${row.usPerRequest === null ? '' : ` ${row.usPerRequest.toFixed(0).padStart(6)} µs/request`}`);
  }
  if (frames.size) {
    console.log(`\nthe 25 frames of "${option('--top')}" that spent most (self time, a native leaf named with its caller):`);
    for (const [label, us] of [...frames].sort((a, b) => b[1] - a[1]).slice(0, 25)) {
      console.log(`${(us / 1000).toFixed(0).padStart(7)} ms ${((us / total) * 100).toFixed(1).padStart(5)} %  ${label}`);
    }
  }
  const floorFile = option('--floor');
  const floorCpu = Number(option('--floor-cpu-ms-per-request') ?? 0);
  const floor = floorFile ? layerRows(floorFile, floorCpu) : undefined;
  if (floor && cpuMsPerRequest && floorCpu) {
    // The floor's profile read by the same rules (its driver calls are bench/baselines/soak-db.ts, its handlers the rest of its code).
    console.log(`\nrelay ÷ floor (${floorFile}, ${floorCpu} ms of CPU a request), µs a request by layer:`);
    console.log(`${'layer'.padEnd(52)}  relay  floor  relay − floor`);
    const floorUs = new Map(floor.rows.map((r) => [r.layer, r.usPerRequest!]));
    for (const row of rows) {
      const f = floorUs.get(row.layer) ?? 0;
      console.log(`${row.layer.padEnd(52)} ${row.usPerRequest!.toFixed(0).padStart(6)} ${f.toFixed(0).padStart(6)} ${(row.usPerRequest! - f).toFixed(0).padStart(14)}`);
    }
    console.log(`${'all'.padEnd(52)} ${(cpuMsPerRequest * 1000).toFixed(0).padStart(6)} ${(floorCpu * 1000).toFixed(0).padStart(6)} ${((cpuMsPerRequest - floorCpu) * 1000).toFixed(0).padStart(14)}`);
  }
  const out = option('--json');
  if (out) {
    const summary = { profile: file, cpuMsPerRequest: cpuMsPerRequest || null, servingMs: total / 1000, startUpMs: startUp / 1000, layers: rows };
    const floorSummary = floor && { profile: floorFile, cpuMsPerRequest: floorCpu || null, servingMs: floor.total / 1000, startUpMs: floor.startUp / 1000, layers: floor.rows };
    writeFileSync(out, JSON.stringify(floorSummary ? { ...summary, floor: floorSummary } : summary, null, 1) + '\n');
  }
}

main();

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
import { PERF_HZ } from './support/perf';

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

function layerOf(stack: ProfileNode[], recordedFromStart: boolean): string {
  // Start-up is told by any frame of the stack (its work runs under the loader at the bottom). A perf
  // record starts after the warm-up: what it names so is a JIT address reused since (its map keeps the old name).
  if (recordedFromStart && stack.some((n) => LAYERS[0][1].test(n.callFrame.url))) return LAYERS[0][0];
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

/** One sample: its stack (innermost frame first), its weight in µs, and what its leaf says by itself. */
interface Sample {
  stack: ProfileNode[];
  us: number;
  leaf: 'gc' | 'write' | 'idle' | null;
  /** A V8 profile runs from the process's start; a perf record from the end of the warm-up. */
  fromStart: boolean;
}

/** A V8 CPU profile's samples (wall time: a thread preempted in a system call is charged to it). */
function* profileSamples(profile: CpuProfile): Iterable<Sample> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + profile.timeDeltas[i]));
  for (const [id, us] of selfUs) {
    const leaf = byId.get(id)!.callFrame;
    const stack: ProfileNode[] = [];
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) stack.push(byId.get(at)!);
    const kind = IDLE.has(leaf.functionName) ? 'idle' : leaf.functionName === GC ? 'gc' : WRITES.has(leaf.functionName) && !leaf.url ? 'write' : null;
    yield { stack, us, leaf: kind, fromStart: true };
  }
}

/** V8's collector in a native frame (a perf sample of the main thread collecting, or allocating into a collection). */
const PERF_GC = /v8::internal::(Heap::|Scavenger|ScavengerCollector|MarkCompactCollector|MinorMarkCompact|Sweeper|ConcurrentMarking|IncrementalMarking)/;
/** The kernel writing to a socket or a pipe (not a file: SQLite's pwrite is the data layer's). */
const PERF_WRITES = /^(sock_write_iter|pipe_write|tcp_sendmsg|unix_stream_sendmsg)$/;
/** `JS:*name /path/file.js:12:3` (node --perf-basic-prof), `~` or `^` for tiers other than TurboFan's. */
const PERF_JS = /^JS:[*~^+]?(\S*) (\S+?):(\d+):\d+$/;

/**
 * Samples of `perf script -F tid,ip,sym,dso` (perf record -g of a node started with --perf-basic-prof, one
 * thread): CPU time only, at the sampling rate given, so a thread waiting or preempted is not charged.
 * Frames become ProfileNodes the rules above read: a JS frame by its file, a native one by its
 * library's path (better-sqlite3's, bcrypt's), a kernel one by its symbol.
 */
function* perfSamples(text: string, usPerSample: number): Iterable<Sample> {
  for (const block of text.split('\n\n')) {
    const lines = block.split('\n').slice(1).filter((line) => line.trim());
    if (!lines.length) continue;
    const stack: ProfileNode[] = lines.map((line, id) => {
      const frame = /^\s*[0-9a-f]+ (.*) \((.*)\)$/.exec(line);
      const symbol = frame?.[1] ?? line.trim();
      const dso = frame?.[2] ?? '';
      const js = PERF_JS.exec(symbol);
      if (js) return { id, callFrame: { functionName: js[1], url: js[2], lineNumber: Number(js[3]) - 1 } };
      return { id, callFrame: { functionName: dso.endsWith('.node') ? `${symbol} ${dso}` : symbol, url: '' } };
    });
    const symbols = stack.map((n) => n.callFrame.functionName);
    const leaf = symbols.some((name) => PERF_GC.test(name)) ? 'gc' : symbols.some((name) => PERF_WRITES.test(name)) ? 'write' : null;
    yield { stack, us: usPerSample, leaf, fromStart: false };
  }
}

function summarise(samples: Iterable<Sample>, frames?: Map<string, number>, topLayer?: string): Map<string, number> {
  const layers = new Map<string, number>();
  for (const { stack, us, leaf, fromStart } of samples) {
    if (leaf === 'idle') continue;
    const layer = leaf === 'gc' ? 'garbage collection' : leaf === 'write' ? KERNEL_WRITES : layerOf(stack, fromStart);
    layers.set(layer, (layers.get(layer) ?? 0) + us);
    if (frames && topLayer && layer.startsWith(topLayer)) frames.set(frameLabel(stack), (frames.get(frameLabel(stack)) ?? 0) + us);
  }
  return layers;
}

/** A `.cpuprofile` (V8's, JSON) or a `perf script` text (its first line a thread id), by its content. */
function samplesOf(file: string, perfHz: number): Iterable<Sample> {
  const text = readFileSync(file, 'utf8');
  return text.trimStart().startsWith('{') ? profileSamples(JSON.parse(text) as CpuProfile) : perfSamples(text, 1e6 / perfHz);
}

interface LayerRow {
  layer: string;
  ms: number;
  share: number;
  usPerRequest: number | null;
}

/** A profile's serving time by layer, largest first, and (given the run's CPU a request) µs a request each. */
function layerRows(file: string, cpuMsPerRequest: number, perfHz: number, frames?: Map<string, number>, topLayer?: string) {
  const layers = summarise(samplesOf(file, perfHz), frames, topLayer);
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
  const perfHz = Number(option('--perf-hz') ?? PERF_HZ);
  const frames = new Map<string, number>();
  const { total, startUp, rows } = layerRows(file, cpuMsPerRequest, perfHz, frames, option('--top'));
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
  const floor = floorFile ? layerRows(floorFile, floorCpu, perfHz) : undefined;
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

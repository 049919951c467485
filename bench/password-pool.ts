/**
 * bench/password-pool: what a burst of sign-ins does to file I/O in the same process (issue 27).
 * An upload opens, writes, fsyncs, renames and closes its file on libuv's thread pool (four
 * threads); bcrypt's async calls ran there too. BENCH_HASHES (8) hashes at BENCH_COST (11, the
 * default) are kept in flight while small files are written and renamed one after another, as an
 * upload spools them: A = bcrypt's async calls (the relay before), B = `PasswordWorkers` (hashing
 * on threads of its own, the relay now), alternating BENCH_ROUNDS (3) times. Prints each side's
 * file-cycle p50/p99 and sign-in (hash) p50/p99, and the ratio B ÷ A of the file cycle's p99.
 * Run: npm run bench:password-pool
 */
import * as bcrypt from 'bcrypt';
import { mkdtempSync, promises as fs, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { PasswordWorkers } from '../src/users/password-workers';

const HASHES = Number(process.env.BENCH_HASHES ?? 8);
const COST = Number(process.env.BENCH_COST ?? 11);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const WORKERS = Number(process.env.SVC_PASSWORD_WORKERS ?? Math.max(1, Math.min(4, availableParallelism() - 1)));

type Hash = (text: string) => Promise<unknown>;
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))] ?? NaN;

async function side(hash: Hash, dir: string): Promise<{ file: number[]; signIn: number[] }> {
  const file: number[] = [];
  const signIn: number[] = [];
  let running = true;
  const signIns = Array.from({ length: HASHES }, async (_, i) => {
    while (running) {
      const started = performance.now();
      await hash(`password ${i}`);
      signIn.push(performance.now() - started);
    }
  });
  const deadline = performance.now() + SECONDS * 1000;
  for (let n = 0; performance.now() < deadline; n++) {
    const started = performance.now();
    const spool = join(dir, `spool-${n}`);
    const handle = await fs.open(spool, 'w');
    await handle.write(Buffer.alloc(1600, n));
    await handle.sync();
    await handle.close();
    await fs.rename(spool, join(dir, `build-${n}.apk`));
    file.push(performance.now() - started);
  }
  running = false;
  await Promise.all(signIns);
  return { file, signIn };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-pool-'));
  const workers = new PasswordWorkers(WORKERS);
  const a = { file: [] as number[], signIn: [] as number[] };
  const b = { file: [] as number[], signIn: [] as number[] };
  try {
    console.log(`${HASHES} hashes in flight at cost ${COST}; ${WORKERS} password worker(s); ${ROUNDS} rounds of ${SECONDS} s per side (load ${loadavg().map((n) => n.toFixed(1)).join(' ')})`);
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? ['a', 'b'] : ['b', 'a'];
      for (const which of order) {
        const result = which === 'a' ? await side((t) => bcrypt.hash(t, COST), dir) : await side((t) => workers.hash(t, COST), dir);
        const into = which === 'a' ? a : b;
        into.file.push(...result.file);
        into.signIn.push(...result.signIn);
      }
    }
    const line = (name: string, s: typeof a) =>
      `${name}: file cycle p50 ${pct(s.file, 50).toFixed(1)} ms, p99 ${pct(s.file, 99).toFixed(1)} ms (${s.file.length}); sign-in p50 ${pct(s.signIn, 50).toFixed(0)} ms, p99 ${pct(s.signIn, 99).toFixed(0)} ms (${s.signIn.length})`;
    console.log(line('A bcrypt on libuv\'s pool', a));
    console.log(line('B password workers     ', b));
    const ratio = pct(b.file, 99) / pct(a.file, 99);
    console.log(`file cycle p99 B ÷ A: ${ratio.toFixed(3)} (${ratio < 0.5 ? 'OK' : 'MISS'}: target < 0.5, file I/O no longer waits for hashing)`);
  } finally {
    await workers.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();

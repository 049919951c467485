/**
 * bench/pg-activity: what the relay's PostgreSQL connections are doing while a benchmark runs beside it.
 * Waits for a database named BENCH_DATABASE_PREFIX… (`svc_bench_`: the benchmarks' own) that did not
 * exist when it started (the benchmark's, not another engineer's), lets BENCH_DELAY_SECONDS (20) pass
 * (seeding; BENCH_DATABASE_NAME names the database instead), then samples pg_stat_activity on it every BENCH_SAMPLE_MS (100) for BENCH_SECONDS (150)
 * and prints, over all samples: connections per sample, the share of connection-samples in each
 * state / wait event (`active` with no wait = running on a CPU; `idle in transaction` = the relay
 * holds the connection between statements; `Lock:transactionid`/`Lock:tuple` = waiting for another
 * transaction's row; `IO:WALSync`/`LWLock:WALWrite` = waiting for a commit's flush), the statements
 * seen waiting on a lock, and the statements seen most often.
 *   npx ts-node --transpile-only bench/pg-activity.ts   (started after the soak has begun seeding)
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { Client } from 'pg';
import { PG_ADMIN_URL } from './support/postgres-seed';

const SAMPLE_MS = Number(process.env.BENCH_SAMPLE_MS ?? 100);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 150);
const DELAY_SECONDS = Number(process.env.BENCH_DELAY_SECONDS ?? 20);
const PREFIX = process.env.BENCH_DATABASE_PREFIX ?? 'svc_bench_';

async function main(): Promise<void> {
  const db = new Client({ connectionString: PG_ADMIN_URL });
  await db.connect();
  const databases = async () =>
    (await db.query('SELECT datname FROM pg_database WHERE datname LIKE $1', [`${PREFIX}%`])).rows.map((r) => String(r.datname));
  const before = new Set(await databases());
  let target: string | undefined = process.env.BENCH_DATABASE_NAME;
  while (!target && !(target = (await databases()).find((name) => !before.has(name)))) await new Promise((resolve) => setTimeout(resolve, 200));
  console.log(`sampling ${target} in ${DELAY_SECONDS} s`);
  await new Promise((resolve) => setTimeout(resolve, DELAY_SECONDS * 1000));
  const states = new Map<string, number>();
  const lockWaiters = new Map<string, number>();
  const statements = new Map<string, number>();
  const perSample: number[] = [];
  /** Each backend's CPU time when first and last seen (a pooled connection lives through the run). */
  const cpuByPid = new Map<number, { first: number; last: number }>();
  const busyPerSample: number[] = [];
  const endAt = Date.now() + SECONDS * 1000;
  let samples = 0;
  const bump = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
  while (Date.now() < endAt) {
    const { rows } = await db.query(
      `SELECT pid, state, wait_event_type, wait_event, left(regexp_replace(query, '\\s+', ' ', 'g'), 90) AS query
         FROM pg_stat_activity
        WHERE datname = $1 AND backend_type = 'client backend'`,
      [target],
    );
    if (rows.length) {
      samples++;
      perSample.push(rows.length);
      let busy = 0;
      for (const row of rows) {
        const cpu = backendCpuMs(Number(row.pid));
        if (cpu !== null) cpuByPid.set(Number(row.pid), { first: cpuByPid.get(Number(row.pid))?.first ?? cpu, last: cpu });
        const wait = row.wait_event_type ? `${row.wait_event_type}:${row.wait_event}` : 'no wait';
        bump(states, `${row.state} | ${wait}`);
        if (row.state !== 'idle') busy++;
        if (row.state === 'active' || row.state === 'idle in transaction') bump(statements, `${row.state}: ${row.query}`);
        if (row.wait_event_type === 'Lock') bump(lockWaiters, `${row.wait_event}: ${row.query}`);
      }
      busyPerSample.push(busy);
    }
    await new Promise((resolve) => setTimeout(resolve, SAMPLE_MS));
  }
  await db.end();
  const total = [...states.values()].reduce((a, b) => a + b, 0);
  const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
  const at = (values: number[], p: number) => sorted(values)[Math.min(values.length - 1, Math.floor(p * values.length))] ?? NaN;
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
  console.log(`load average: ${loadavg().map((l) => l.toFixed(1)).join(' ')}; ${samples} samples every ${SAMPLE_MS} ms`);
  console.log(
    `connections per sample: mean ${mean(perSample).toFixed(1)}, max ${Math.max(0, ...perSample)}; not idle: mean ${mean(busyPerSample).toFixed(2)}, ` +
      `p50 ${at(busyPerSample, 0.5)}, p90 ${at(busyPerSample, 0.9)}, max ${Math.max(0, ...busyPerSample)}; ` +
      `samples with every connection busy: ${((busyPerSample.filter((b, i) => b === perSample[i]).length / Math.max(1, samples)) * 100).toFixed(0)} %`,
  );
  const cpuMs = [...cpuByPid.values()].reduce((sum, c) => sum + c.last - c.first, 0);
  console.log(`backends' CPU while sampled: ${(cpuMs / 1000).toFixed(1)} s over ${SECONDS} s (${(cpuMs / 1000 / SECONDS).toFixed(2)} cores), ${cpuByPid.size} backends`);
  const top = (map: Map<string, number>, n: number) => [...map.entries()].sort((a, b) => b[1] - a[1]).slice(0, n);
  console.log('| state | wait | share of connection-samples |');
  console.log('|---|---|---|');
  for (const [key, n] of top(states, 20)) {
    const [state, wait] = key.split(' | ');
    console.log(`| ${state} | ${wait} | ${((n / total) * 100).toFixed(1)} % |`);
  }
  console.log('waiting on a lock (samples):');
  for (const [key, n] of top(lockWaiters, 10)) console.log(`  ${n}  ${key}`);
  console.log('statements seen active or idle in transaction (samples):');
  for (const [key, n] of top(statements, 15)) console.log(`  ${n}  ${key}`);
}

/** user + system CPU time of a process (ms), from /proc; null when it has gone. */
function backendCpuMs(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return null;
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

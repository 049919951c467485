/**
 * bench/resume: issue 15's "a 500 MB upload cut at 60 % finishes from where it stopped", run on the
 * real thing rather than the test suite's 6 MB builds. A relay as `npm start` runs it; a 500 MB APK
 * (BENCH_MB to change); `svc upload` (tus above its threshold) sent through a loopback proxy that
 * drops the connection once 60 % of the bytes have passed. Prints where each PATCH started, how many
 * bytes crossed the proxy in all (a restart from zero would be ≥ 160 %), the time against an
 * uncut upload of the same file, and whether the stored build is byte-identical (SHA-256).
 * Run: npm run bench:resume   (not part of npm test)
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startCuttingProxy } from '../test/support/cutting-proxy';
import { writeBigApk } from './support/big-upload';
import { buildRelay, issuePat, MB, ROOT, startRelay, stopChild } from './support/relay';

const run = promisify(execFile);
const SIZE_MB = Number(process.env.BENCH_MB ?? 500);
const CUT_AT = 0.6;

async function sha256(stream: NodeJS.ReadableStream): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of stream) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

async function svcUpload(url: string, token: string, path: string): Promise<{ id: number; seconds: number }> {
  const started = performance.now();
  const { stdout } = await run(process.execPath, [join(ROOT, 'bin', 'svc.js'), 'upload', path, '--resumable-above', String(MB), '--json'], {
    env: { ...process.env, SVC_URL: url, SVC_TOKEN: token, XDG_STATE_HOME: mkdtempSync(join(tmpdir(), 'svc-state-')) },
    maxBuffer: 16 * MB,
  });
  return { id: (JSON.parse(stdout) as { id: number }).id, seconds: (performance.now() - started) / 1000 };
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'svc-bench-resume-'));
  const buildPath = join(work, 'big.apk');
  let relay: Awaited<ReturnType<typeof startRelay>> | null = null;
  try {
    process.stdout.write(`Writing a ${SIZE_MB} MB APK… `);
    await writeBigApk(buildPath, SIZE_MB * MB);
    const bytes = statSync(buildPath).size;
    const original = await sha256(createReadStream(buildPath));
    process.stdout.write('done\n');
    buildRelay();
    relay = await startRelay(join(work, 'data'), { SVC_LOG_LEVEL: 'warn', SVC_MAX_BUILD_BYTES: String(bytes + MB) });
    const origin = relay.base.replace(/\/api\/v1$/, '');
    const token = await issuePat(relay.base);

    const uncut = await svcUpload(origin, token, buildPath);
    const proxy = await startCuttingProxy(relay.port, Math.floor(bytes * CUT_AT));
    let resumed: { id: number; seconds: number };
    try {
      resumed = await svcUpload(proxy.url, token, buildPath);
    } finally {
      await proxy.close();
    }
    const offsets = proxy.patchOffsets();
    const download = await fetch(`${relay.base}/builds/${resumed.id}/download`, { headers: { Authorization: `Bearer ${token}` } });
    if (!download.ok || !download.body) throw new Error(`download answered ${download.status}`);
    const stored = await sha256(download.body as unknown as NodeJS.ReadableStream);

    console.log(`load average: ${loadavg().map((l) => l.toFixed(1)).join(' ')}; ${(bytes / MB).toFixed(0)} MB, cut once after ${CUT_AT * 100} %`);
    console.log(`connection cut: ${proxy.cut() ? 'yes' : 'NO (the proxy never cut: nothing proven)'}`);
    console.log(`PATCH offsets: ${offsets.map((o) => `${((o / bytes) * 100).toFixed(1)} %`).join(' → ')}`);
    const resumedAt = offsets.slice(1).find((o) => o > 0);
    console.log(`resumed from: ${resumedAt ? `${((resumedAt / bytes) * 100).toFixed(1)} % (not from 0)` : 'NOT RESUMED'}`);
    console.log(`uncut upload: ${uncut.seconds.toFixed(2)} s; cut and resumed: ${resumed.seconds.toFixed(2)} s; ratio ${(resumed.seconds / uncut.seconds).toFixed(2)}`);
    console.log(`stored build byte-identical (SHA-256): ${stored === original ? 'OK' : 'MISMATCH'}`);
    if (!proxy.cut() || !resumedAt || stored !== original) process.exitCode = 1;
  } finally {
    if (relay) await stopChild(relay.child);
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

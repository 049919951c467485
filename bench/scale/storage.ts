/**
 * bench/scale/storage: upload throughput to the data folder vs to S3-compatible object storage, in
 * one run. Two relays run as child processes (`npm start`'s compiled dist/), one with the default
 * data-folder store and one with SVC_STORAGE_URL pointing at a real S3-protocol server on loopback
 * (s3rver, test/support/s3-server.ts). The same large APK (200 MB by default, BENCH_MB to change) is
 * uploaded through POST /builds to each, alternating, BENCH_RUNS times (3); the medians are printed
 * as MB/s and as a ratio (S3 time / data-folder time). The S3 path adds the multipart upload after
 * the local intake (docs/storage.md), so the ratio is what object storage costs an upload here;
 * against a remote bucket the network decides it.
 * Run: npm run bench:scale:storage   (not part of npm test)
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestS3Server } from '../../test/support/s3-server';
import { uploadFile, writeBigApk } from '../support/big-upload';
import { buildRelay, issuePat, MB, median, RunningRelay, startRelay } from '../support/relay';

const SIZE_MB = Number(process.env.BENCH_MB ?? 200);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'svc-bench-storage-'));
  const buildPath = join(work, 'big.apk');
  const s3 = await startTestS3Server('bench');
  const relays: RunningRelay[] = [];
  try {
    await writeBigApk(buildPath, SIZE_MB * MB);
    const bytes = statSync(buildPath).size;
    buildRelay();
    const limits = { SVC_LOG_LEVEL: 'warn', SVC_MAX_BUILD_BYTES: String(bytes + MB) };
    const disk = await startRelay(join(work, 'disk'), limits);
    relays.push(disk);
    const bucket = await startRelay(join(work, 's3'), { ...limits, ...s3.env('bench') });
    relays.push(bucket);
    const targets = [
      { name: 'data folder', relay: disk, pat: await issuePat(disk.base), seconds: [] as number[] },
      { name: 'S3 (s3rver on loopback)', relay: bucket, pat: await issuePat(bucket.base), seconds: [] as number[] },
    ];
    for (let run = 0; run < RUNS; run++) {
      for (const target of run % 2 ? [...targets].reverse() : targets) {
        const started = process.hrtime.bigint();
        const answer = await uploadFile(`${target.relay.base}/builds`, 'POST', { Authorization: `Bearer ${target.pat}` }, buildPath, bytes);
        target.seconds.push(Number(process.hrtime.bigint() - started) / 1e9);
        if (answer.code !== 201) throw new Error(`${target.name}: upload answered ${answer.code}: ${answer.body}`);
      }
    }
    const [diskSeconds, s3Seconds] = targets.map((t) => median(t.seconds));
    for (const target of targets) {
      const seconds = median(target.seconds);
      console.log(`${target.name.padEnd(26)} ${(bytes / MB).toFixed(0)} MB in ${seconds.toFixed(2)} s = ${(bytes / MB / seconds).toFixed(1)} MB/s (median of ${RUNS})`);
    }
    console.log(`ratio S3 / data folder:    ${(s3Seconds / diskSeconds).toFixed(2)}x the upload time`);
    const pending = await s3.pendingUploads();
    if (pending.length) throw new Error(`multipart uploads left pending: ${pending.join(', ')}`);
  } finally {
    await Promise.all(relays.map((r) => r.stop()));
    await s3.close();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

import type { LoggerService } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';

/** How often the event loop is checked for quiet, from `listen` on. */
const CHECK_EVERY_MS = 1000;
/** Quiet: the event loop busy for under this share of the last check's interval. */
const QUIET_UTILIZATION = 0.1;
/** After this many busy checks V8's own memory reducer is left to it. */
const MAX_CHECKS = 60;
/**
 * Busy or not, past this much heap in use the release is sent at once (see below). The relay's live
 * heap under the mixed load is 62-66 MB after a full collection.
 */
const HEAP_CEILING_MB = 112;

/**
 * Start-up (loading ~2,200 modules, building the application) grows V8's young generation to its
 * 2 × 16 MB maximum, nearly all of it garbage once the relay listens, and V8 keeps it committed
 * until its memory reducer judges the process idle: measured, RSS 136 MB for the first ~30 s of an
 * idle relay, then 98 MB. A low-memory notification does the reducer's work at once (full
 * collections that shrink the young generation to 1 MB and compact the old one); under load V8
 * grows the young generation again as it sees fit. `--max-semi-space-size` would keep it small for
 * good, and cost the screenshot path (docs/decisions.md#startup-tried).
 * The collections take ~100 ms of CPU in one pause, so they wait for a second in which the event
 * loop was quiet (the work a start leaves running after `listen` done, no burst of requests).
 * A relay under load from its first second never has one, and V8 runs its first full collection
 * only when the old generation reaches a limit it sets from early scavenges' survival: measured in
 * the soak, at 100 MB of heap in use in some runs and 150-170 MB in others, a peak RSS of 230 or
 * 300-315 MB (bench/results/2026-12-02-aa32cf1-soak-floor.md). So past HEAP_CEILING_MB of heap in
 * use the release is sent busy or not: one pause, after which V8's limit follows the live heap
 * (1.5x, heap-growth.ts).
 * Installed as an engine-room 'process' piece (startRelayProcess: npm start, `svc relay`), not for
 * relays built inside tests.
 */
export function releaseStartUpMemory(logger?: LoggerService, heapCeilingMb = HEAP_CEILING_MB): void {
  let checks = 0;
  let previous = performance.eventLoopUtilization();
  const check = () => {
    const now = performance.eventLoopUtilization();
    const busy = performance.eventLoopUtilization(now, previous).utilization;
    previous = now;
    if (busy >= QUIET_UTILIZATION && getHeapStatistics().used_heap_size < heapCeilingMb * 1048576) {
      if (++checks < MAX_CHECKS) setTimeout(check, CHECK_EVERY_MS).unref();
      return;
    }
    const before = process.memoryUsage.rss();
    const started = performance.now();
    void sendLowMemoryNotification().then((sent) => {
      if (!sent) return;
      const mb = (bytes: number) => Math.round(bytes / 1048576);
      const ms = Math.round(performance.now() - started);
      logger?.debug?.(`start-up memory released in ${ms} ms: RSS ${mb(before)} → ${mb(process.memoryUsage.rss())} MB`, 'StartUpMemory');
    });
  };
  setTimeout(check, CHECK_EVERY_MS).unref();
}

/**
 * V8's low-memory notification (collections with the "reduce memory footprint" flag, which a
 * plain `gc()` does not set). JavaScript reaches it only through the inspector protocol's
 * `HeapProfiler.collectGarbage`, here on an in-process session (no port is opened). Resolves
 * false where Node was built without the inspector.
 */
export async function sendLowMemoryNotification(): Promise<boolean> {
  let session: import('node:inspector').Session;
  try {
    const { Session } = await import('node:inspector');
    session = new Session();
    session.connect();
  } catch {
    return false;
  }
  return new Promise((resolve) => {
    session.post('HeapProfiler.collectGarbage', (err) => {
      // Disconnecting inside the session's own callback never returns (Node 20.20): after it.
      setImmediate(() => {
        session.disconnect();
        resolve(!err);
      });
    });
  });
}

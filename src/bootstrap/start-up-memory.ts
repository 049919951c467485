import type { LoggerService } from '@nestjs/common';

/** Long enough for the work a start leaves running after `listen` (sweeps, schedules) to finish. */
const AFTER_LISTEN_MS = 1000;

/**
 * Start-up (loading ~2,200 modules, building the application) grows V8's young generation to its
 * 2 × 16 MB maximum, nearly all of it garbage once the relay listens, and V8 keeps it committed
 * until its memory reducer judges the process idle: measured, RSS 136 MB for the first ~30 s of an
 * idle relay, then 98 MB. A low-memory notification does the reducer's work at once (full
 * collections that shrink the young generation to 1 MB and compact the old one); under load V8
 * grows the young generation again as it sees fit. `--max-semi-space-size` would keep it small for
 * good, and cost the screenshot path (docs/performance.md, "Start-up and idle memory").
 * Called by the process entry points (npm start, `svc relay`), not by relays built inside tests.
 */
export function releaseStartUpMemory(logger?: LoggerService): void {
  setTimeout(() => {
    const before = process.memoryUsage.rss();
    void sendLowMemoryNotification().then((sent) => {
      if (!sent) return;
      const mb = (bytes: number) => Math.round(bytes / 1048576);
      logger?.debug?.(`start-up memory released: RSS ${mb(before)} → ${mb(process.memoryUsage.rss())} MB`, 'StartUpMemory');
    });
  }, AFTER_LISTEN_MS).unref();
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

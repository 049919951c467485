import type { INestApplication, LoggerService } from '@nestjs/common';
import type { Server } from 'node:http';
import { wsAdapterOf } from './create-app';

/** How long agents and device-session clients get to answer the 1001 close. */
const WS_GRACE_MS = 1000;
/** Kept back from the deadline for the application's own close (resource flush, database). */
const CLOSE_RESERVE_MS = 1500;
const POLL_MS = 50;

/**
 * Stops the relay in an order that loses nothing (security.md §6.2):
 * 1. stop accepting connections (new ones are refused at once);
 * 2. refuse new WebSocket upgrades and close every agent and device-session socket with 1001;
 * 3. let in-flight HTTP requests (uploads) finish until the deadline minus a reserve, closing
 *    keep-alive connections as they go idle; then cut the rest (an upload's receiver then removes
 *    its temporary file);
 * 4. close the application (gateways flush resource samples, the database closes).
 * Idempotent: a second call returns the first one's promise.
 */
export function shutDownRelay(app: INestApplication, deadlineMs: number): Promise<void> {
  const running = shutdowns.get(app);
  if (running) return running;
  const started = Date.now();
  const server = app.getHttpServer() as Server;
  const shutdown = (async () => {
    server.close(); // stop listening; busy connections stay until they finish or are cut below
    server.closeIdleConnections();
    await wsAdapterOf(app)?.goingAway(WS_GRACE_MS);
    await drain(server, started + Math.max(deadlineMs - CLOSE_RESERVE_MS, 0));
    await app.close();
  })();
  shutdowns.set(app, shutdown);
  return shutdown;
}

const shutdowns = new WeakMap<INestApplication, Promise<void>>();

async function drain(server: Server, until: number): Promise<void> {
  while (Date.now() < until && (await openConnections(server)) > 0) {
    server.closeIdleConnections();
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  if ((await openConnections(server)) === 0) return;
  server.closeAllConnections();
  // Give cut requests a moment to run their failure paths (temporary files removed).
  await new Promise((r) => setTimeout(r, 200));
}

function openConnections(server: Server): Promise<number> {
  return new Promise((resolve) => server.getConnections((err, count) => resolve(err ? 0 : count)));
}

/**
 * SIGTERM / SIGINT, however often they arrive (an init system signals the whole process group, so
 * npm, `sh` and the relay each get one, and npm may relay its own): the first starts
 * `shutDownRelay`, later ones are only logged. The handlers stay installed until the process exits,
 * so a repeated signal never falls through to Node's default action (an immediate exit that would
 * cut every socket without a close frame). A hard deadline exits regardless. `beforeStop` runs
 * first (the CLI stops its tunnel). Output streams that go away (a log pipe closed by a supervisor
 * that saw npm exit) must not crash the relay halfway through its shutdown.
 */
export function stopOnSignals(
  app: INestApplication,
  deadlineMs: number,
  logger: LoggerService,
  beforeStop: () => void = () => undefined,
): { readonly stopping: boolean } {
  const state = { stopping: false };
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);
  const onSignal = (signal: NodeJS.Signals) => {
    if (state.stopping) {
      logger.log(`Received ${signal} again; already shutting down`, 'Shutdown');
      return;
    }
    state.stopping = true;
    logger.log(`Received ${signal}; shutting down (at most ${deadlineMs} ms)`, 'Shutdown');
    setTimeout(() => {
      logger.error(`Shutdown did not finish within ${deadlineMs} ms; exiting`, undefined, 'Shutdown');
      process.exit(1);
    }, deadlineMs).unref();
    try {
      beforeStop();
    } catch {
      // the tunnel is best effort; the relay must still stop
    }
    shutDownRelay(app, deadlineMs).then(
      () => process.exit(0),
      (err: Error) => {
        logger.error(`Shutdown failed: ${err.message}`, err.stack, 'Shutdown');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return state;
}

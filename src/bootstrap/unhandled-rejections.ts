import type { LoggerService } from '@nestjs/common';

/**
 * A safety net for the relay process (npm start, `svc relay`): a promise rejection nobody handles
 * is logged with its stack instead of ending the process, Node's default since v15. One forgotten
 * `catch` behind a message from outside (a request, a Redis message) must not stop every user's
 * relay. It is still a bug: the code that made the promise is where it belongs, and the log says so.
 */
export function logUnhandledRejections(logger: LoggerService): void {
  process.on('unhandledRejection', (reason: unknown) => {
    const err = reason instanceof Error ? reason : new Error(String(reason));
    logger.error(`Unhandled promise rejection (a bug: its code should catch it), the relay keeps running: ${err.message}`, err.stack, 'Process');
  });
}

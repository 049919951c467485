import type { NextFunction, RequestHandler } from 'express';

/**
 * Middlewares run one after the other as a single entry of Express's stack, under the rules Express
 * gives each entry: `next(err)` hands the error on and skips the rest, a thrown error or a rejected
 * promise is `next(err)`, `next('route')` goes on to the next one and `next('router')` leaves.
 *
 * Why: Express's router pays for every entry of the app's stack on every request (a path match, a
 * params object, a closure and a turn of its `next`); the relay's front middlewares (request log,
 * compression, time limits, body parsing, the dashboard) were ten entries that every API request
 * walked, most of them passing it on at once (issue 42, bench/results/2026-12-04-82bf0a0-layers-vs-floor.md).
 */
export function inSequence(...steps: RequestHandler[]): RequestHandler {
  return function sequence(req, res, done) {
    let at = 0;
    const next: NextFunction = (err?: unknown) => {
      if (err === 'router') return done(err);
      if (err && err !== 'route') return done(err);
      const step = steps[at++];
      if (step === undefined) return done();
      try {
        const result: unknown = step(req, res, next);
        if (result instanceof Promise) result.then(undefined, (error: unknown) => done(error ?? new Error('Rejected promise')));
      } catch (error) {
        done(error);
      }
    };
    next();
  };
}

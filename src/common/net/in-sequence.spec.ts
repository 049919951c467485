import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { inSequence } from './in-sequence';

const req = {} as Request;
const res = {} as Response;

/** Runs the sequence and resolves with what it handed to Express's `next`, and the steps that ran. */
function run(...steps: ((ran: string[]) => RequestHandler)[]): Promise<{ passed: unknown[]; ran: string[] }> {
  const ran: string[] = [];
  return new Promise((resolve) => {
    const done: NextFunction = (...passed: unknown[]) => resolve({ passed, ran });
    inSequence(...steps.map((step) => step(ran)))(req, res, done);
  });
}

const step = (name: string, then: (next: NextFunction) => unknown = (next) => next()) => (ran: string[]) => ((_req: Request, _res: Response, next: NextFunction) => {
  ran.push(name);
  return then(next);
}) as RequestHandler;

describe('inSequence', () => {
  it('runs every step in order, then passes the request on with no argument', async () => {
    expect(await run(step('a'), step('b'), step('c'))).toEqual({ passed: [], ran: ['a', 'b', 'c'] });
  });

  it('stops at a step that answers (does not call next): Express hears nothing', async () => {
    const ran: string[] = [];
    const done = jest.fn();
    inSequence(step('a')(ran), step('answers', () => undefined)(ran), step('never')(ran))(req, res, done);
    await new Promise((resolve) => setImmediate(resolve));
    expect(ran).toEqual(['a', 'answers']);
    expect(done).not.toHaveBeenCalled();
  });

  it('hands an error on and skips the rest: passed to next, thrown, or a rejected promise', async () => {
    const boom = new Error('boom');
    expect(await run(step('a', (next) => next(boom)), step('never'))).toEqual({ passed: [boom], ran: ['a'] });
    expect(await run(step('a', () => { throw boom; }), step('never'))).toEqual({ passed: [boom], ran: ['a'] });
    expect(await run(step('a', () => Promise.reject(boom)), step('never'))).toEqual({ passed: [boom], ran: ['a'] });
    const { passed } = await run(step('a', () => Promise.reject(undefined)));
    expect((passed[0] as Error).message).toBe('Rejected promise');
  });

  it("goes on after next('route') and leaves at next('router'), as Express's stack does", async () => {
    expect(await run(step('a', (next) => next('route')), step('b'))).toEqual({ passed: [], ran: ['a', 'b'] });
    expect(await run(step('a', (next) => next('router')), step('never'))).toEqual({ passed: ['router'], ran: ['a'] });
  });

  it('lets a step call next later (after its own await)', async () => {
    const later = step('a', (next) => setTimeout(() => next(), 5));
    expect(await run(later, step('b'))).toEqual({ passed: [], ran: ['a', 'b'] });
  });
});

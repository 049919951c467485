// @ts-check
'use strict';
/**
 * A password hashing thread (started by password-workers.ts): takes `hash` and `compare` jobs from its
 * message queue one after another, with bcrypt's synchronous calls (each blocks only this thread),
 * and answers each with its id and how long bcrypt took (the pool's wait estimate), in order.
 *
 * Plain JavaScript, type-checked (`// @ts-check`; part of `npm run typecheck`), like the plist
 * worker: it runs as it is both from the sources (tests) and from dist/ (copied there as a Nest
 * asset), with no TypeScript loader in the thread.
 */
const { parentPort } = require('node:worker_threads');
const { performance } = require('node:perf_hooks');
const bcrypt = require('bcrypt');

/**
 * @typedef {object} PasswordJob
 * @property {number} id
 * @property {'hash' | 'compare'} op
 * @property {string} text
 * @property {string | number} arg the cost for `hash`, the stored hash for `compare`
 */

if (!parentPort) throw new Error('password-worker.js runs as a worker thread');
const port = parentPort;

port.on('message', (/** @type {PasswordJob} */ { id, op, text, arg }) => {
  const started = performance.now();
  try {
    const result = op === 'hash' ? bcrypt.hashSync(text, Number(arg)) : bcrypt.compareSync(text, String(arg));
    port.postMessage({ id, result, ms: performance.now() - started });
  } catch (error) {
    port.postMessage({ id, error: String((error && error.message) || error), ms: performance.now() - started });
  }
});

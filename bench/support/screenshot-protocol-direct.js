'use strict';
/**
 * The second direct baseline of bench/screenshot, "direct over the agent protocol": the issue's
 * "agents answered directly without the relay", with the agents speaking the protocol they speak to
 * the relay. In a worker thread of its own, a `ws` server plays the relay's side of
 * agent-protocol.md (the agents connect to it as to the relay, say hello and list their device) and
 * a closed loop of `connections` callers sends `screenshot` requests to the agents (cycling through
 * the sessions, as the HTTP load does through its paths) and counts each binary answer once it has
 * all arrived, its payload's length checked. No HTTP, no second process: what the agents and one
 * WebSocket hop cost, against which the relay's extra HTTP leg and process are measured.
 * Posts `{ port }` once listening; then answers each `{ connections, seconds, warmupSeconds,
 * sessions, bytes }` with a result shaped like load-worker.js's, and `{ waitFor: sessions }` with
 * `{ ready: true }` once every one of them is listed.
 */
const { parentPort } = require('node:worker_threads');
const { WebSocketServer } = require('ws');
const { MAX_MESSAGE_BYTES, payloadLength } = require('../../dist/agents/protocol/agent-protocol');
const { acceptAgents } = require('./agent-side');

const agents = new Map(); // sessionId → agent socket
const pending = new Map(); // request id → its caller's callback
let nextId = 0;

const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false, maxPayload: MAX_MESSAGE_BYTES });
acceptAgents(wss, agents, (frame) => {
  const done = pending.get(frame.header.id);
  if (!done) return;
  pending.delete(frame.header.id);
  done(payloadLength(frame.payload));
});
wss.on('listening', () => parentPort.postMessage({ port: wss.address().port }));

function run({ connections, seconds, warmupSeconds = 1, sessions, bytes }) {
  return new Promise((resolve) => {
    const latencies = [];
    const statuses = {};
    let recording = false;
    let stopped = false;
    let next = 0;
    let completed = 0;
    let open = connections;
    const caller = () => {
      if (stopped) return void (--open === 0 && finish());
      const sessionId = sessions[next++ % sessions.length];
      const id = String(++nextId);
      const started = performance.now();
      pending.set(id, (length) => {
        completed++;
        if (recording) {
          latencies.push(performance.now() - started);
          const status = length === bytes ? '200' : `length ${length}`;
          statuses[status] = (statuses[status] ?? 0) + 1;
        }
        caller();
      });
      agents.get(sessionId).send(JSON.stringify({ type: 'request', id, method: 'screenshot', params: { sessionId, format: 'png' } }));
    };
    let t0 = 0;
    let elapsed = 0;
    const finish = () => {
      latencies.sort((a, b) => a - b);
      const pct = (p) => (latencies.length ? latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] : NaN);
      resolve({ requests: latencies.length, rps: latencies.length / elapsed, p50: pct(50), p99: pct(99), max: latencies[latencies.length - 1] ?? NaN, statuses, errors: 0, completed });
    };
    for (let i = 0; i < connections; i++) caller();
    setTimeout(() => {
      recording = true;
      t0 = performance.now();
      setTimeout(() => {
        recording = false;
        elapsed = (performance.now() - t0) / 1000;
        stopped = true;
      }, seconds * 1000);
    }, warmupSeconds * 1000);
  });
}

/** Resolves once every one of `sessions` has been listed by an agent. */
async function ready(sessions) {
  while (!sessions.every((s) => agents.has(s))) await new Promise((r) => setTimeout(r, 20));
  return { ready: true };
}

parentPort.on('message', async (options) => parentPort.postMessage(options.waitFor ? await ready(options.waitFor) : await run(options)));

'use strict';
/**
 * A small closed-loop HTTP/1.1 load generator (runs in a worker thread so it has its own core):
 * `connections` keep-alive sockets, each sending the next request as soon as the previous answer
 * is complete, cycling through `paths`, for `seconds` after `warmupSeconds` of unrecorded load; with
 * `minAnswers`, longer until that many answers are recorded (at most `maxSeconds`): a slow variant's
 * 32 connections answer in waves, and a fixed window of a few seconds caught one wave or none.
 * `keepLatencies` sends every recorded latency back, so turns can be pooled.
 * Answers must carry Content-Length (both the relay and the baselines send it). Plain `net`, so the
 * client costs far less CPU per request than `http.request` and never becomes the bottleneck.
 */
const { parentPort, workerData } = require('node:worker_threads');
const net = require('node:net');

const { port, host = '127.0.0.1', paths, headers = {}, connections, seconds, warmupSeconds = 1, minAnswers = 0, maxSeconds = seconds, keepLatencies = false } = workerData;
const requests = paths.map((path) =>
  Buffer.from(
    `GET ${path} HTTP/1.1\r\nHost: ${host}:${port}\r\nConnection: keep-alive\r\n` +
      Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('') +
      '\r\n',
  ),
);

const latencies = [];
const statuses = {};
let recording = false;
let stopped = false;
let next = 0;
let errors = 0;
let completed = 0; // including the warm-up and the answers drained after the end, for CPU time per request

function connection() {
  return new Promise((resolve) => {
    const socket = net.connect(port, host);
    socket.setNoDelay(true);
    let buffer = Buffer.alloc(0);
    let bodyLeft = 0; // bytes of the current answer's body still to come (large bodies are counted, not kept)
    let status = '';
    let started = 0;
    const send = () => {
      if (stopped) return socket.end(), resolve();
      started = performance.now();
      socket.write(requests[next++ % requests.length]);
    };
    const answered = () => {
      completed++;
      if (recording) {
        latencies.push(performance.now() - started);
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
      send();
    };
    socket.on('connect', send);
    socket.on('data', (chunk) => {
      if (bodyLeft > 0) {
        if (chunk.length < bodyLeft) return void (bodyLeft -= chunk.length);
        chunk = chunk.subarray(bodyLeft);
        bodyLeft = 0;
        answered();
      }
      buffer = buffer.length ? Buffer.concat([buffer, chunk]) : chunk;
      for (;;) {
        const headEnd = buffer.indexOf('\r\n\r\n');
        if (headEnd < 0) return;
        const head = buffer.subarray(0, headEnd).toString('latin1');
        const match = /\r\ncontent-length:\s*(\d+)/i.exec(head);
        const length = match ? Number(match[1]) : 0;
        status = head.slice(9, 12);
        const available = buffer.length - (headEnd + 4);
        if (available < length) {
          bodyLeft = length - available;
          buffer = Buffer.alloc(0);
          return;
        }
        buffer = buffer.subarray(headEnd + 4 + length);
        answered();
      }
    });
    socket.on('error', () => {
      errors++;
      resolve();
    });
    socket.on('close', resolve);
  });
}

async function main() {
  const all = Array.from({ length: connections }, connection);
  await new Promise((r) => setTimeout(r, warmupSeconds * 1000));
  recording = true;
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const cap = Math.max(seconds, maxSeconds) * 1000;
  while (latencies.length < minAnswers && performance.now() - t0 < cap) await new Promise((r) => setTimeout(r, 20));
  recording = false;
  const elapsed = (performance.now() - t0) / 1000;
  stopped = true;
  // The answers still on their way are awaited (and their server's CPU counted with them): left running,
  // a slow variant's queries would go on into the next side's turn.
  await Promise.race([Promise.all(all), new Promise((r) => setTimeout(r, 30000))]);
  latencies.sort((a, b) => a - b);
  const pct = (p) => (latencies.length ? latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] : NaN);
  parentPort.postMessage({
    requests: latencies.length,
    seconds: elapsed,
    rps: latencies.length / elapsed,
    p50: pct(50),
    p99: pct(99),
    max: latencies[latencies.length - 1] ?? NaN,
    statuses,
    errors,
    completed,
    latencies: keepLatencies ? latencies : undefined,
  });
}

main();

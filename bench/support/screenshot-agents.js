'use strict';
/**
 * The agents of bench/screenshot, in a worker thread of their own: `count` WebSocket agents
 * connected to the relay (agent-protocol.md §1–2), each listing one booted device `bench-<i>` and
 * answering every `screenshot` request with the same PNG in one binary frame, and the baseline:
 * one plain node:http server answering `GET /screenshot/bench-<i>` with those bytes ("the agent
 * answered directly, without the relay"). Both sides send the PNG buffer as it is, never copied.
 * Posts `{ directPort }` once every agent is connected and has announced its device.
 */
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const WebSocket = require('ws');

const { relayPort, token, count, png } = workerData;
const payload = Buffer.from(png.buffer, png.byteOffset, png.byteLength);

function agent(index) {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`ws://127.0.0.1:${relayPort}/api/v1/agent/connect`, {
      headers: { Authorization: `Bearer ${token}`, 'X-Svc-Agent-Name': `bench-agent-${index}` },
      perMessageDeflate: false,
    });
    socket.on('error', reject);
    socket.on('open', () => {
      socket.send(JSON.stringify({ type: 'hello', agent: { version: 'bench', os: 'linux', hostname: 'bench' } }));
      socket.send(
        JSON.stringify({
          type: 'devices',
          devices: [{ sessionId: `bench-${index}`, name: `Bench ${index}`, platform: 'android', state: 'booted', osVersion: '15' }],
        }),
      );
      resolve(socket);
    });
    socket.on('message', (data, isBinary) => {
      if (isBinary) return;
      const request = JSON.parse(data.toString());
      if (request.type !== 'request' || request.method !== 'screenshot') return;
      // [4-byte length][JSON header] then the PNG, as one message in two fragments (no copy of the PNG).
      const header = Buffer.from(JSON.stringify({ type: 'response', id: request.id, ok: true, result: { mime: 'image/png' } }));
      const prefix = Buffer.alloc(4 + header.length);
      prefix.writeUInt32BE(header.length, 0);
      header.copy(prefix, 4);
      socket.send(prefix, { binary: true, fin: false });
      socket.send(payload, { binary: true, fin: true });
    });
  });
}

async function main() {
  await Promise.all(Array.from({ length: count }, (_, i) => agent(i)));
  const direct = http.createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': payload.length, 'Cache-Control': 'no-store' });
    res.end(payload);
  });
  direct.keepAliveTimeout = 60_000;
  direct.listen(0, '127.0.0.1', () => parentPort.postMessage({ directPort: direct.address().port }));
}

main().catch((err) => {
  throw err;
});

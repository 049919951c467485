'use strict';
/**
 * Baseline for bench/screenshot: the least a relay can do to put an agent's screenshot on an HTTP
 * answer, written by hand with plain node:http and `ws` in a process of its own (as the relay is):
 *   - agents connect over WebSocket as to the relay (agent-protocol.md §1–2: the same path, name
 *     header, hello and devices), binary messages read as fragments, never joined;
 *   - `GET /screenshot/<sessionId>` with `Authorization: Bearer <token>` (sha256 of the token
 *     compared with the one given, no database) sends the agent a `screenshot` request under a
 *     fresh id and answers 200 with the image's bytes as the agent's message brought them.
 * No logging, no routing beyond one regular expression, no timeouts. What the relay costs beyond
 * this is its framework and features; what this costs beyond the agents answering directly is the
 * extra process and the extra loopback hop. Plain JavaScript on the relay's compiled protocol codec
 * (dist/), not ts-node: the TypeScript compiler in its heap would make every garbage collection of
 * this process as costly as the relay's, and garbage collection is most of what a screenshot costs.
 * Usage: node bench/baselines/screenshot-hop.js <token> <port>   (after the relay is built)
 */
const { createHash, randomUUID } = require('node:crypto');
const { createServer } = require('node:http');
const { WebSocketServer } = require('ws');
const { AGENT_CONNECT_PATH, MAX_MESSAGE_BYTES, payloadLength } = require('../../dist/agents/protocol/agent-protocol');
const { acceptAgents } = require('../support/agent-side');

const [token, portArg] = process.argv.slice(2);
const sha256 = (text) => createHash('sha256').update(text).digest('hex');
const tokenHash = sha256(token);
const agents = new Map(); // sessionId → agent socket
const pending = new Map(); // request id → HTTP response

const server = createServer((req, res) => {
  const auth = req.headers.authorization;
  if (!auth?.startsWith('Bearer ') || sha256(auth.slice(7)) !== tokenHash) return void res.writeHead(401).end();
  const sessionId = /^\/screenshot\/([^/?]+)$/.exec(req.url ?? '')?.[1];
  const agent = sessionId ? agents.get(sessionId) : undefined;
  if (!agent) return void res.writeHead(404).end();
  const id = randomUUID();
  pending.set(id, res);
  agent.send(JSON.stringify({ type: 'request', id, method: 'screenshot', params: { sessionId, format: 'png' } }));
});
server.keepAliveTimeout = 60_000;

const wss = new WebSocketServer({ server, path: AGENT_CONNECT_PATH, perMessageDeflate: false, maxPayload: MAX_MESSAGE_BYTES });
acceptAgents(wss, agents, (frame) => {
  const res = pending.get(frame.header.id);
  if (!res) return;
  pending.delete(frame.header.id);
  res.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': payloadLength(frame.payload), 'Cache-Control': 'no-store' });
  for (const chunk of frame.payload) res.write(chunk);
  res.end();
});

server.listen(Number(portArg), '127.0.0.1', () => console.log('listening on', portArg));

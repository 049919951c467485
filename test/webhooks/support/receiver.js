/* eslint-disable */
// A webhook receiver run by the tests inside a network namespace (`ip netns exec … node receiver.js <host> <port>`).
// It prints one JSON line per event on stdout. Behaviour by path:
//   /ok/...           200
//   /status/<code>    that status
//   /flaky/<n>        500 for the first n requests of one X-Svc-Delivery id, then 200
//   /hang             accepts and never answers
//   /redirect?to=URL  302 to URL
//   /endless          200 and a body that never ends (reports how much it wrote when the client closes)
'use strict';
const http = require('node:http');
const [host, port] = process.argv.slice(2);
const attemptsPerDelivery = new Map();
const out = (event) => process.stdout.write(JSON.stringify(event) + '\n');

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const url = new URL(req.url, 'http://receiver');
    out({
      type: 'request',
      method: req.method,
      path: url.pathname,
      search: url.search,
      headers: req.headers,
      body: Buffer.concat(chunks).toString('base64'),
      at: Date.now(),
    });
    const [, kind, arg] = url.pathname.split('/');
    switch (kind) {
      case 'status':
        res.writeHead(Number(arg)).end();
        break;
      case 'flaky': {
        const id = String(req.headers['x-svc-delivery']);
        const n = (attemptsPerDelivery.get(id) || 0) + 1;
        attemptsPerDelivery.set(id, n);
        res.writeHead(n <= Number(arg) ? 500 : 200).end();
        break;
      }
      case 'hang':
        req.socket.on('close', () => out({ type: 'closed', path: url.pathname, at: Date.now() }));
        break;
      case 'redirect':
        res.writeHead(302, { Location: url.searchParams.get('to') }).end();
        break;
      case 'endless': {
        res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
        const chunk = Buffer.alloc(64 * 1024, 120);
        let written = 0;
        const pump = () => {
          while (!res.destroyed && written < 2 * 1024 * 1024 * 1024) {
            written += chunk.length;
            if (!res.write(chunk)) return;
          }
        };
        res.on('drain', pump);
        res.on('close', () => out({ type: 'closed', path: url.pathname, bytes: written, at: Date.now() }));
        pump();
        break;
      }
      default:
        res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok');
    }
  });
});
server.listen(Number(port), host, () => out({ type: 'listening', port: server.address().port }));

'use strict';
// A minimal round-robin HTTP load balancer for the benchmarks (bench/scale/list.ts): each request
// goes to the next target over a keep-alive connection pool. Run as its own process so its CPU is
// not the load generator's. argv: <listen port> <target port>…; prints "listening on" when ready.
const http = require('node:http');

const [listenPort, ...targets] = process.argv.slice(2).map(Number);
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
let next = 0;

/**
 * Body-less requests only (the list benchmark's GETs), so one can be sent again: a pooled socket the
 * relay closed as idle (its keep-alive timeout) fails the first write, and is retried once elsewhere.
 */
function forward(req, res, retries) {
  const port = targets[next++ % targets.length];
  const upstream = http.request({ host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.headers, agent }, (answer) => {
    res.writeHead(answer.statusCode, answer.headers);
    answer.pipe(res);
  });
  upstream.on('error', () => {
    if (retries > 0 && !res.headersSent) return forward(req, res, retries - 1);
    if (!res.headersSent) res.writeHead(502);
    res.end();
  });
  upstream.end();
}

http
  .createServer((req, res) => {
    req.resume();
    req.on('end', () => forward(req, res, 1));
  })
  .listen(listenPort, '127.0.0.1', () => console.log(`listening on ${listenPort} → ${targets.join(', ')}`));

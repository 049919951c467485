import express from 'express';
import { randomInt } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import type { Server } from 'node:http';
import { sendJsonText } from './send-json-text';

const TEXTS = ['{}', '{"items":[],"total":0}', JSON.stringify({ a: 'é 🙂 \u2028', b: [1, 2, 3] }), JSON.stringify({ x: 'y'.repeat(5000) })];

/** One raw HTTP/1.1 exchange: the answer's bytes with the Date header taken out (it differs by the second). */
function exchange(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let raw = '';
    socket.on('data', (chunk: Buffer) => (raw += chunk.toString('latin1')));
    socket.on('end', () => resolve(raw.replace(/\r\nDate: [^\r]*/, '')));
    socket.on('error', reject);
    socket.end(request);
  });
}

describe('sendJsonText', () => {
  let server: Server;
  let port: number;
  beforeAll(async () => {
    const app = express();
    app.disable('x-powered-by');
    // What Nest did for GET /builds: @Header through res.set, then res.send of the text.
    app.get('/send/:n', (req, res) => {
      res.header('Content-Type', 'application/json; charset=utf-8');
      res.send(TEXTS[Number(req.params.n)]);
    });
    app.get('/text/:n', (req, res) => sendJsonText(res, TEXTS[Number(req.params.n)]));
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('answers byte for byte as res.send: GET, HEAD, fresh and stale If-None-Match', async () => {
    for (let n = 0; n < TEXTS.length; n++) {
      const sent = await exchange(port, `GET /send/${n} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      const etag = /\r\nETag: ([^\r]*)/.exec(sent)![1];
      const requests = [
        (path: string) => `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
        (path: string) => `HEAD ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
        (path: string) => `GET ${path} HTTP/1.1\r\nHost: x\r\nIf-None-Match: ${etag}\r\nConnection: close\r\n\r\n`,
        (path: string) => `GET ${path} HTTP/1.1\r\nHost: x\r\nIf-None-Match: W/"${randomInt(1000)}-stale"\r\nConnection: close\r\n\r\n`,
        (path: string) => `GET ${path} HTTP/1.1\r\nHost: x\r\nIf-None-Match: ${etag}\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n`,
      ];
      const statuses: string[] = [];
      for (const request of requests) {
        const expected = await exchange(port, request(`/send/${n}`));
        expect(await exchange(port, request(`/text/${n}`))).toBe(expected);
        statuses.push(expected.slice(9, 12));
      }
      // Only the fresh If-None-Match is a 304 (without a body).
      expect(statuses).toEqual(['200', '200', '304', '200', '200']);
    }
  });
});

import express, { type Response } from 'express';
import request from 'supertest';
import { weakETag } from '../../common/net/etag';
import { RelayHttpAdapter } from './relay-http-adapter';

/**
 * RelayHttpAdapter.reply writes a handler's object itself: what a client gets must be what Nest's
 * reply gave through Express's res.json, byte for byte and header for header.
 */
describe('RelayHttpAdapter.reply', () => {
  const adapter = new RelayHttpAdapter();
  const app = adapter.getInstance<express.Application>();
  app.set('etag', weakETag);
  const bodies: Record<string, unknown> = {
    object: { items: [{ id: 1, name: 'Ünïcode ✓ "quoted"', tags: ['a', 'b'] }], total: 1 },
    array: [1, 'two', null, { three: 3 }],
    empty: {},
    buffer: Buffer.from('bytes'),
  };
  // The relay's reply and Express's res.json (what Nest's reply calls for an object) on the same body.
  app.all('/relay/:name/:status', (req, res) => void adapter.reply(res, bodies[req.params.name], Number(req.params.status) || undefined));
  app.all('/stock/:name/:status', (req, res: Response) => {
    const status = Number(req.params.status);
    if (status) res.status(status);
    res.json(bodies[req.params.name]);
  });
  app.get('/typed', (_req, res) => {
    res.setHeader('Content-Type', 'application/problem+json');
    void adapter.reply(res, { error: 'kept type' });
  });
  app.get('/text', (_req, res) => void adapter.reply(res, 'plain text'));
  app.get('/none', (_req, res) => void adapter.reply(res, undefined, 204));

  const compared = ['content-type', 'content-length', 'etag'];
  const headersOf = (res: request.Response) => Object.fromEntries(compared.map((name) => [name, res.headers[name]]));

  it.each(Object.keys(bodies))('answers the %s body with res.json\'s bytes and headers, with and without a status', async (name) => {
    for (const status of [0, 201]) {
      const stock = await request(app).get(`/stock/${name}/${status}`);
      const relay = await request(app).get(`/relay/${name}/${status}`);
      expect(relay.status).toBe(stock.status);
      expect(headersOf(relay)).toEqual(headersOf(stock));
      expect(relay.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(relay.text).toBe(stock.text);
    }
  });

  it('answers HEAD without a body and a matching If-None-Match with 304, as res.json does', async () => {
    const stock = await request(app).head('/stock/object/0');
    const relay = await request(app).head('/relay/object/0');
    expect(headersOf(relay)).toEqual(headersOf(stock));
    expect(relay.text).toBeUndefined();
    const etag = relay.headers.etag;
    await request(app).get('/relay/object/0').set('If-None-Match', etag).expect(304);
  });

  it("leaves to Nest's reply a type the handler set, a string and no body", async () => {
    const typed = await request(app).get('/typed').expect(200);
    expect(typed.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(typed.body).toEqual({ error: 'kept type' });
    const text = await request(app).get('/text').expect(200);
    expect(text.headers['content-type']).toMatch(/^text\/html/);
    expect(text.text).toBe('plain text');
    await request(app).get('/none').expect(204);
  });
});

import express, { type Request, type Response } from 'express';
import request from 'supertest';
import { mayMatchApiPaths, RouteGroups } from './route-groups';

/** An app whose routes answer with their own name, registered in this order through RouteGroups where they have a group. */
function appWith(routes: [method: 'get' | 'post' | 'all', path: string, name: string][], configure?: (app: express.Application) => void) {
  const app = express();
  configure?.(app);
  const groups = new RouteGroups(app);
  const placed: string[] = [];
  for (const [method, path, name] of routes) {
    const handler = (req: Request, res: Response) => res.json({ name, route: req.route?.path, params: req.params, url: req.url });
    if (groups.add(method, path, [handler])) placed.push(name);
    else app[method](path, handler);
  }
  app.use((_req: Request, res: Response) => res.status(404).json({ error: 'none' }));
  return { app, placed };
}

describe('RouteGroups (one router per /api/v1/<resource>)', () => {
  const routes: [method: 'get' | 'post' | 'all', path: string, name: string][] = [
    ['get', '/metrics', 'metrics'],
    ['get', '/api/v1/builds/:id', 'build'],
    ['get', '/api/v1/builds/compare', 'never: the parameter route came first'],
    ['post', '/api/v1/builds', 'upload'],
    ['get', '/session/:id/*path', 'webdriver'],
    ['all', '/api/v1/uploads/*path', 'tus'],
    ['get', '/api/v1/audit', 'audit'],
  ];

  it('groups the API routes only, and each request is answered by the route Express would have chosen', async () => {
    const { app, placed } = appWith(routes);
    expect(placed).toEqual(['build', 'never: the parameter route came first', 'upload', 'tus', 'audit']);
    const expected: [method: 'get' | 'post' | 'head' | 'patch' | 'options', path: string, status: number, name: string][] = [
      ['get', '/api/v1/builds/compare', 200, 'build'],
      ['get', '/api/v1/builds/7', 200, 'build'],
      ['post', '/api/v1/builds', 200, 'upload'],
      ['get', '/api/v1/builds', 404, 'none'],
      ['patch', '/api/v1/uploads/abc', 200, 'tus'],
      ['get', '/api/v1/audit', 200, 'audit'],
      ['get', '/session/9/element/3', 200, 'webdriver'],
      ['get', '/metrics', 200, 'metrics'],
      ['get', '/api/v1/nothing', 404, 'none'],
      ['get', '/api/v1', 404, 'none'],
      ['get', '/api//v1/audit', 404, 'none'],
      // Express's defaults: any case, a trailing slash, HEAD by the GET route.
      ['get', '/API/V1/Builds/8?x=1', 200, 'build'],
      ['get', '/api/v1/audit/', 200, 'audit'],
      ['head', '/api/v1/audit', 200, ''],
      // OPTIONS: the routes that take it (all, options); for the others the app's not-found handler, as before.
      ['options', '/api/v1/uploads/x', 200, 'tus'],
      ['options', '/api/v1/builds', 404, 'none'],
    ];
    for (const [method, path, status, name] of expected) {
      const res = await request(app)[method](path);
      expect([method, path, res.status, res.body?.name ?? res.body?.error ?? '']).toEqual([method, path, status, name]);
    }
  });

  it('leaves the request as Express gives it to a route: its URL, its route template, its parameters', async () => {
    const { app } = appWith(routes);
    const res = await request(app).get('/api/v1/builds/12?full=1').expect(200);
    expect(res.body).toEqual({ name: 'build', route: '/api/v1/builds/:id', params: { id: '12' }, url: '/api/v1/builds/12?full=1' });
    expect((await request(app).patch('/api/v1/uploads/a/b').expect(200)).body.params).toEqual({ path: ['a', 'b'] });
  });

  it("follows 'case sensitive routing' when the app turns it on", async () => {
    const { app } = appWith(routes, (a) => a.enable('case sensitive routing'));
    await request(app).get('/api/v1/audit').expect(200);
    await request(app).get('/API/v1/audit').expect(404);
  });

  it('refuses at registration a route outside the groups that could match an API path (it would lose its place)', () => {
    const groups = new RouteGroups(express());
    for (const path of ['/:anything', '/*path', '/api/:version/builds', '/api/v1/:resource', '/{api}/v1/x']) {
      expect(() => groups.add('get', path, [() => undefined])).toThrow(/would lose its place/);
    }
    expect(() => groups.add('get', /^\/api/ as unknown as string, [() => undefined])).toThrow(/as a string/);
    expect(() => groups.add('propfind', '/api/v1/:x', [() => undefined])).toThrow(/would lose its place/);
    for (const path of ['/', '/metrics', '/api/v1', '/api/v1/', '/api/v2/:x', '/session/:id/*path', '/install/latest/:token']) {
      expect(mayMatchApiPaths(path)).toBe(false);
    }
  });
});

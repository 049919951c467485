import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { useTestRelay } from '../support/use-relay';

/**
 * The relay's HTTP server builds each request and response with Express's prototypes
 * (src/platform/express/relay-http-adapter.ts), so Express's own setPrototypeOf has nothing to change.
 */
describe('the HTTP server behind Express', () => {
  const ctx = useTestRelay();

  it("builds requests and responses with the app's prototypes before Express sees them, and they keep them", async () => {
    const express = ctx.relay.app.getHttpAdapter().getInstance() as { request: object; response: object };
    const server = ctx.relay.app.getHttpServer() as Server;
    const seen: { atArrival: [boolean, boolean]; atFinish?: [boolean, boolean] }[] = [];
    const watch = (req: IncomingMessage, res: ServerResponse) => {
      const entry: (typeof seen)[number] = {
        atArrival: [Object.getPrototypeOf(req) === express.request, Object.getPrototypeOf(res) === express.response],
      };
      seen.push(entry);
      res.once('finish', () => {
        entry.atFinish = [Object.getPrototypeOf(req) === express.request, Object.getPrototypeOf(res) === express.response];
      });
    };
    server.prependListener('request', watch);
    try {
      await ctx.relay.http().get('/api/v1/health').expect(200);
      await ctx.relay.http().get('/api/v1/builds').expect(401);
      await ctx.relay.http().post('/api/v1/auth/login').set('Content-Type', 'application/json').send('{"email":').expect(400);
    } finally {
      server.removeListener('request', watch);
    }
    expect(seen).toEqual(Array(3).fill({ atArrival: [true, true], atFinish: [true, true] }));
    // The prototypes are Express's own: its request getters and response methods answer.
    expect(typeof (express.request as { get?: unknown }).get).toBe('function');
    expect(typeof (express.response as { json?: unknown }).json).toBe('function');
  });

  it("tests only a request's API resource's routes: the app's stack holds no /api/v1 route, a late module's route still answers", async () => {
    type Layer = { route?: { path: string } };
    const express = ctx.relay.app.getHttpAdapter().getInstance() as { router: { stack: Layer[] } };
    const routes = express.router.stack.filter((layer) => layer.route).map((layer) => layer.route!.path);
    // The routes outside the API (WebDriver hub, SCIM, install pages, /metrics, /api/docs) stay in the app's stack.
    expect(routes.length).toBeGreaterThan(10);
    expect(routes.filter((path) => path.toLowerCase().startsWith('/api/v1'))).toEqual([]);
    // Registered last of all (AuditModule), and checked the same: the guard answers, not the 404 handler.
    expect((await ctx.relay.http().get('/api/v1/audit').expect(401)).body).toEqual({ error: expect.any(String) });
    await ctx.relay.http().get('/api/V1/Audit/').expect(401); // any case, a trailing slash: as Express routes
    expect((await ctx.relay.http().get('/api/v1/no-such-resource').expect(404)).body).toEqual({ error: 'Not found' });
    expect((await ctx.relay.http().options('/api/v1/builds').expect(404)).body).toEqual({ error: 'Not found' });
  });
});

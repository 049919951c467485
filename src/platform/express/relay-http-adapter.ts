import { StreamableFile, type NestApplicationOptions } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import { createServer as createHttpServer, IncomingMessage, type RequestListener, type ServerOptions, ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Application, Response, Router } from 'express';
import { ROUTE_METHODS, RouteGroups, type RouteMethod } from './route-groups';

/**
 * Express gives every request and response its app's prototypes (`app.request`, `app.response`)
 * with Object.setPrototypeOf, as the first thing it does with them. Done to objects Node has already
 * built, that change of shape costs V8 what it had learned about requests at every property read
 * after it: about 30 % of the relay's CPU on a list request (docs/decisions.md#item-49).
 *
 * Here Node builds them as instances of two subclasses of its own, whose prototypes take the place of
 * the app's (the same properties, the same chain behind them), so Express's setPrototypeOf finds
 * nothing to change.
 *
 * The routes Nest registers through it (RouterExplorer calls the adapter's get, post…) go through
 * RouteGroups: a request tests only its API resource's routes. A handler's object is written as
 * res.json writes it, with less around it (reply). Everything else is Nest's adapter.
 */
export class RelayHttpAdapter extends ExpressAdapter {
  /** `serverOptions`: what Node only reads when the server is created (connectionsCheckingInterval). */
  constructor(private readonly serverOptions: ServerOptions = {}) {
    super();
  }

  private routeGroups: RouteGroups | null = null;

  /** A route (path and handlers) into its group, or into the app's stack as Nest's adapter does; one argument reads a setting. */
  route(method: RouteMethod, args: unknown[]): unknown {
    const app = this.getInstance<Application>();
    if (args.length >= 2 && (this.routeGroups ??= new RouteGroups(app)).add(method, args[0], args.slice(1))) return app;
    return (app[method] as (...args: unknown[]) => unknown)(...args);
  }

  /** The Express Routers of the API's resources: with the app's stack, every route the relay serves. */
  apiRouteGroups(): Router[] {
    return this.routeGroups?.routers() ?? [];
  }

  /**
   * A handler's object answered as Nest's reply answers it through Express's res.json (the same
   * bytes, status and headers: Content-Type, Content-Length, ETag, 304 and HEAD by res.send), without
   * what res.json and res.send do around it on every answer: three setting lookups, mime-types'
   * lookup of the type and content-type's parse and format of it to add the charset. The relay sets
   * none of the JSON settings (replacer, spaces, escape). Anything else goes to Nest's reply: no body,
   * a stream, an Error, a string, and an answer whose Content-Type a handler has set.
   */
  override reply(response: Response, body: unknown, statusCode?: number): unknown {
    if (body === null || typeof body !== 'object' || body instanceof Error || body instanceof StreamableFile || response.getHeader('Content-Type') !== undefined) {
      return super.reply(response, body, statusCode);
    }
    if (statusCode) response.status(statusCode);
    response.setHeader('Content-Type', JSON_CONTENT_TYPE);
    return response.send(Buffer.from(JSON.stringify(body)));
  }

  override initHttpServer(options: NestApplicationOptions): void {
    // Nest's own tracking of open connections is private to its adapter; the relay does not use it.
    if (options.forceCloseConnections) throw new Error('RelayHttpAdapter does not support forceCloseConnections');
    // The prototypes Express sets are on the app (express/lib/express.js), untyped in @types/express.
    const app = this.getInstance<RequestListener & { request: object; response: object }>();
    const classes = { IncomingMessage: class extends IncomingMessage {}, ServerResponse: class extends ServerResponse {} };
    app.request = asPrototypeOf(classes.IncomingMessage, app.request);
    app.response = asPrototypeOf(classes.ServerResponse, app.response);
    this.httpServer = options.httpsOptions
      ? createHttpsServer({ ...options.httpsOptions, ...this.serverOptions, ...classes }, app)
      : createHttpServer({ ...this.serverOptions, ...classes }, app);
  }
}

/** What Express's res.json sets, charset included (its `set` through mime-types, then `send`'s setCharset). */
const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** `derived.prototype`, made to stand in for `prototype`: its properties, then what it inherits. */
function asPrototypeOf(derived: { prototype: object }, prototype: object): object {
  Object.defineProperties(derived.prototype, Object.getOwnPropertyDescriptors(prototype));
  Object.setPrototypeOf(derived.prototype, Object.getPrototypeOf(prototype));
  return derived.prototype;
}

// Nest's adapter methods get, post, put… (AbstractHttpAdapter: app.get(...args) and the like), each through route().
for (const method of ROUTE_METHODS) {
  (RelayHttpAdapter.prototype as unknown as Record<RouteMethod, (...args: unknown[]) => unknown>)[method] = function (this: RelayHttpAdapter, ...args: unknown[]) {
    return this.route(method, args);
  };
}

import { Router, type Application, type RequestHandler } from 'express';

/** Every method Nest registers routes with (RouterMethodFactory's map), as Express names them: none passes the check. */
export const ROUTE_METHODS = ['get', 'post', 'put', 'delete', 'patch', 'all', 'options', 'head', 'search', 'query', 'propfind', 'proppatch', 'mkcol', 'copy', 'move', 'lock', 'unlock'] as const;
export type RouteMethod = (typeof ROUTE_METHODS)[number];

const API_PREFIX = '/api/v1/';
/** A path segment with nothing of path-to-regexp's syntax in it (no parameter, wildcard, group or escape). */
const LITERAL = /^[A-Za-z0-9._~%-]+$/;

/**
 * A resource's routes, and apart those that answer OPTIONS (`all`, `options`). A Router whose
 * stack ends on an OPTIONS request answers it itself (200, `Allow:` the methods of the routes the
 * path matched); in the app's stack Nest's not-found handler comes first, so an OPTIONS request
 * that no route takes is a 404 ({ error }), and it must stay one.
 */
interface Group {
  routes: Router;
  options: Router | null;
}

/**
 * The API's routes grouped by their resource, `/api/v1/<resource>`: one Express Router each, in
 * their registration order, and one dispatcher in the app's stack where the first of them was.
 *
 * Why: Express walks its stack route by route until one matches, and Nest puts every route there
 * in module order: a request for a late module's route (comments, audit) tested ~150 patterns
 * first, ~4 % of the relay's CPU on the soak (docs/decisions.md#issue-42-route-groups). Here it
 * tests its resource's routes only (22 at most, /api/v1/builds).
 *
 * Which route answers stays the same: within a group the order is the registration order, and a
 * route of one group cannot match a path of another (their third segments differ). Every route left
 * in the app's stack is checked when it is registered: one that could match an API path (a first
 * segment that is a parameter, `/api/<parameter>`, `/api/v1/<parameter>`) would now come after the
 * groups, so it stops the start instead. Keys follow Express's routing options (case-insensitive
 * unless 'case sensitive routing' is on; a trailing slash matches either way, as in the groups).
 */
export class RouteGroups {
  private readonly groups = new Map<string, Group>();
  private mounted = false;
  /** Express's routing options, read at the first route: the groups' routers are made with them, and keys follow them. */
  private options: { caseSensitive: boolean; strict: boolean } | null = null;

  constructor(private readonly app: Application) {}

  /** Registers one route: in its group if it has one, else in the app's stack as Express would. */
  add(method: RouteMethod, path: unknown, handlers: unknown[]): boolean {
    if (typeof path !== 'string') throw new Error(`route ${String(path)}: only a path given as a string can be placed (route-groups.ts)`);
    const key = this.groupOf(path);
    if (key === null) {
      if (mayMatchApiPaths(path)) throw new Error(`route ${path}: a route that may match API paths outside /api/v1/<resource> would lose its place (route-groups.ts)`);
      return false;
    }
    let group = this.groups.get(key);
    if (!group) this.groups.set(key, (group = { routes: Router(this.routingOptions()), options: null }));
    const routers = [group.routes];
    if (method === 'all' || method === 'options') routers.push((group.options ??= Router(this.routingOptions())));
    for (const router of routers) (router[method] as (path: string, ...handlers: unknown[]) => unknown)(path, ...handlers);
    if (!this.mounted) {
      this.mounted = true;
      this.app.use(this.dispatch);
    }
    return true;
  }

  /** The routers of the groups (each route once: the OPTIONS routers repeat routes of these). */
  routers(): Router[] {
    return [...this.groups.values()].map((group) => group.routes);
  }

  private readonly dispatch: RequestHandler = (req, res, next) => {
    const group = this.groups.get(this.requestKey(req.path));
    const router = req.method === 'OPTIONS' ? group?.options : group?.routes;
    if (router) router(req, res, next);
    else next();
  };

  /** `/api/v1/<resource>` of a route's path, when its resource segment is a literal. */
  private groupOf(path: string): string | null {
    if (!path.toLowerCase().startsWith(API_PREFIX)) return null;
    const end = path.indexOf('/', API_PREFIX.length);
    const resource = path.slice(API_PREFIX.length, end < 0 ? undefined : end);
    return LITERAL.test(resource) ? this.normalise(path.slice(0, API_PREFIX.length + resource.length)) : null;
  }

  /** The same of a request's path (what Express matches routes against): up to the fourth slash. */
  private requestKey(path: string): string {
    const end = path.indexOf('/', API_PREFIX.length);
    return this.normalise(end < 0 ? path : path.slice(0, end));
  }

  private normalise(key: string): string {
    return this.routingOptions().caseSensitive ? key : key.toLowerCase();
  }

  private routingOptions() {
    return (this.options ??= { caseSensitive: this.app.enabled('case sensitive routing'), strict: this.app.enabled('strict routing') });
  }
}

/**
 * Whether a route outside the groups could match a path under /api/v1/<resource>: its first
 * segment is not a literal, or it is `api` and the next one is not a literal, or `api/v1` followed
 * by a segment that is not one.
 */
export function mayMatchApiPaths(path: string): boolean {
  const [first = '', second, third] = path.split('/').slice(1);
  if (!LITERAL.test(first)) return first !== '' || path.length > 1;
  if (first.toLowerCase() !== 'api' || second === undefined) return false;
  if (!LITERAL.test(second)) return true;
  if (second.toLowerCase() !== 'v1' || third === undefined || third === '') return false;
  return !LITERAL.test(third);
}

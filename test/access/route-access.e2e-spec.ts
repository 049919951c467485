import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { MetadataScanner, ModulesContainer } from '@nestjs/core';
import { GATEWAY_METADATA, GATEWAY_OPTIONS } from '@nestjs/websockets/constants';
import { API_PREFIX } from '../../src/bootstrap/create-app';
import { AccessRequirement, AUTH_REQUIREMENT } from '../../src/common/auth/auth.decorator';
import { useTestRelay } from '../support/use-relay';
import type { RelayHttpAdapter } from '../../src/platform/express/relay-http-adapter';

interface DeclaredRoute {
  route: string;
  requirement: AccessRequirement | undefined;
}

/**
 * Express routes that are not controller endpoints: the OpenAPI docs (public by design), and the
 * exact-prefix mount Nest's Express adapter adds for middleware applied to every route
 * (`ALL /api/v1`, which only calls next(); the test below checks it answers 404).
 */
const NON_ENDPOINTS = /^(GET \/api\/(docs|docs-yaml|v1\/openapi\.json)(\/.*)?|ALL \/api\/v1)$/;

const joinPath = (...parts: (string | undefined)[]) =>
  '/' +
  parts
    .flatMap((p) => (p ?? '').split('/'))
    .filter(Boolean)
    .join('/');

/** Every controller handler of the running relay, with its @Auth (handler first, then class). */
function declaredRoutes(modules: ModulesContainer, servedPaths: Set<string>): DeclaredRoute[] {
  const scanner = new MetadataScanner();
  const routes: DeclaredRoute[] = [];
  for (const module of modules.values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as (new (...args: unknown[]) => object) | null;
      if (!controller || !wrapper.instance) continue;
      const prefixes = ([] as string[]).concat(Reflect.getMetadata(PATH_METADATA, controller) ?? '');
      const prototype = Object.getPrototypeOf(wrapper.instance);
      for (const name of scanner.getAllMethodNames(prototype)) {
        const handler = prototype[name];
        const paths = Reflect.getMetadata(PATH_METADATA, handler);
        if (paths === undefined) continue;
        const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod];
        const requirement: AccessRequirement | undefined =
          Reflect.getMetadata(AUTH_REQUIREMENT, handler) ?? Reflect.getMetadata(AUTH_REQUIREMENT, controller);
        for (const prefix of prefixes) {
          for (const path of ([] as string[]).concat(paths)) {
            // Served under /api/v1 unless excluded (files under /uploads/ and link pages at the root).
            const prefixed = `${method} ${joinPath(API_PREFIX, prefix, path)}`;
            const root = `${method} ${joinPath(prefix, path)}`;
            routes.push({ route: servedPaths.has(prefixed) || !servedPaths.has(root) ? prefixed : root, requirement });
          }
        }
      }
    }
  }
  return routes.sort((a, b) => a.route.localeCompare(b.route));
}

/** Every WebSocket gateway (`WS /path`), with the @Auth on its class that UpgradeRoutingWsAdapter applies to the upgrade. */
function declaredGateways(modules: ModulesContainer): DeclaredRoute[] {
  const routes: DeclaredRoute[] = [];
  for (const module of modules.values()) {
    for (const wrapper of module.providers.values()) {
      const gateway = wrapper.metatype as (new (...args: unknown[]) => object) | null;
      if (!gateway || !wrapper.instance || !Reflect.getMetadata(GATEWAY_METADATA, gateway)) continue;
      const { path } = Reflect.getMetadata(GATEWAY_OPTIONS, gateway) as { path: string };
      routes.push({ route: `WS ${path}`, requirement: Reflect.getMetadata(AUTH_REQUIREMENT, gateway) });
    }
  }
  return routes.sort((a, b) => a.route.localeCompare(b.route));
}

/** `METHOD /path` of every route Express actually serves. */
function servedRoutes(app: ReturnType<typeof useTestRelay>['relay']['app']): Set<string> {
  type Stack = { stack: { route?: { path: string; methods: Record<string, boolean> } }[] };
  const adapter = app.getHttpAdapter() as unknown as RelayHttpAdapter;
  // The app's stack, and the API resources' routers behind it (src/platform/express/route-groups.ts).
  const routers = [(adapter.getInstance() as { router: Stack }).router, ...(adapter.apiRouteGroups() as unknown as Stack[])];
  const served = new Set<string>();
  for (const layer of routers.flatMap((router) => router.stack)) {
    if (!layer.route) continue;
    const methods = Object.keys(layer.route.methods).map((m) => m.toUpperCase());
    const method = methods.length > 2 ? 'ALL' : methods.filter((m) => m !== '_ALL')[0];
    served.add(`${method} ${layer.route.path}`);
  }
  return served;
}

/** One readable line per route, in the words of spec §5: who may call it, with what. */
function describeAccess(requirement: AccessRequirement | undefined): string {
  if (!requirement) return 'NO @Auth (refused)';
  const parts: string[] = [];
  if (requirement.public) parts.push('public');
  else if (requirement.scim) parts.push('SCIM token');
  else {
    const credentials = [requirement.cookie === false ? null : 'cookie'];
    const scopes = ([] as string[]).concat(requirement.pat ?? []);
    if (scopes.length) credentials.push(`PAT(${scopes.join('|')})`);
    parts.push(credentials.filter(Boolean).join(' or '));
    parts.push(requirement.roles ? `roles: ${requirement.roles.join(', ')}` : 'any role');
  }
  if (requirement.hostOnly) parts.push('relay host only');
  if (requirement.beforeSecondFactor) parts.push('open before two-factor enrolment');
  return parts.join('; ');
}

describe('route access (STYLE rule 5): every route and who may call it', () => {
  const ctx = useTestRelay();
  let routes: DeclaredRoute[];
  let gateways: DeclaredRoute[];
  let served: Set<string>;
  beforeAll(() => {
    served = servedRoutes(ctx.relay.app);
    routes = declaredRoutes(ctx.relay.app.get(ModulesContainer), served);
    gateways = declaredGateways(ctx.relay.app.get(ModulesContainer));
  });

  it('finds the routes the relay serves (and no others)', () => {
    const declared = new Set(routes.map((r) => r.route));
    const undeclaredServed = [...served].filter((r) => !NON_ENDPOINTS.test(r) && !declared.has(r));
    expect(undeclaredServed).toEqual([]);
    expect(routes.length).toBeGreaterThanOrEqual(11);
    for (const r of routes) expect(served).toContain(r.route);
  });

  it('the middleware mount at the prefix is no endpoint', async () => {
    for (const method of ['get', 'post'] as const) {
      const res = await ctx.relay.http()[method]('/api/v1');
      expect({ status: res.status, body: res.body }).toEqual({ status: 404, body: { error: 'Not found' } });
    }
  });

  it('every route and every WebSocket gateway declares @Auth', () => {
    expect(gateways.map((g) => g.route)).toEqual([
      'WS /api/v1/agent/connect',
      'WS /api/v1/sessions/:sessionId/connect',
      'WS /api/v1/sessions/:sessionId/stream',
    ]);
    expect([...routes, ...gateways].filter((r) => !r.requirement).map((r) => r.route)).toEqual([]);
  });

  it('every non-public route accepts at least one credential', () => {
    const unreachable = [...routes, ...gateways].filter(
      (r) => r.requirement && !r.requirement.public && r.requirement.cookie === false && !r.requirement.pat,
    );
    expect(unreachable.map((r) => r.route)).toEqual([]);
  });

  it('matches the reviewed snapshot (a diff here is a permission change: review it, then `npx jest -u`)', () => {
    const table = [...routes, ...gateways].map((r) => `${r.route.padEnd(48)} ${describeAccess(r.requirement)}`).join('\n');
    expect(`\n${table}\n`).toMatchSnapshot();
  });
});

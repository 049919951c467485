import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';
import { AccessRequirement, AUTH_REQUIREMENT } from '../../src/common/auth/auth.decorator';
import { WRITER_ROLES } from '../../src/common/auth/role';
import type request from 'supertest';
import { MemberFactory, TestMember } from '../support/factory';
import { startTestRelay, TestRelay } from '../support/test-relay';

interface Route {
  method: 'get' | 'post' | 'patch' | 'put' | 'delete' | 'head' | 'options';
  /** As declared, e.g. `/api/v1/builds/:id`. */
  path: string;
  access: AccessRequirement;
}

const VERBS: Partial<Record<RequestMethod, Route['method']>> = {
  [RequestMethod.GET]: 'get',
  [RequestMethod.POST]: 'post',
  [RequestMethod.PATCH]: 'patch',
  [RequestMethod.PUT]: 'put',
  [RequestMethod.DELETE]: 'delete',
  [RequestMethod.HEAD]: 'head',
  [RequestMethod.OPTIONS]: 'options',
};
/** Controllers served at the relay root (create-app.ts ROOT_ROUTES). */
const ROOT_CONTROLLERS = new Set(['uploads', 'invite', 'reset-password']);

/** Every HTTP route of the running relay with its declared @Auth, read from the controllers' metadata. */
function declaredRoutes(relay: TestRelay): Route[] {
  const routes: Route[] = [];
  for (const module of relay.app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const type = wrapper.metatype as (new (...args: never[]) => object) | null;
      if (!type) continue;
      const base = String(Reflect.getMetadata(PATH_METADATA, type) ?? '').replace(/^\/|\/$/g, '');
      const prefix = ROOT_CONTROLLERS.has(base) ? '' : '/api/v1';
      for (const name of Object.getOwnPropertyNames(type.prototype)) {
        const handler = type.prototype[name];
        if (name === 'constructor' || typeof handler !== 'function') continue;
        const sub = Reflect.getMetadata(PATH_METADATA, handler);
        if (sub === undefined) continue;
        const method = VERBS[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod];
        if (!method) throw new Error(`unexpected HTTP method on ${type.name}.${name}`);
        const path = [prefix, base, String(sub).replace(/^\/|\/$/g, '')].filter(Boolean).join('/');
        routes.push({ method, path: `/${path.replace(/^\//, '')}`, access: Reflect.getMetadata(AUTH_REQUIREMENT, handler) });
      }
    }
  }
  return routes;
}

/** A concrete URL for a declared path (ids that may or may not exist: access is decided first). */
const concrete = (path: string) =>
  path
    .replace(/:(id|name|sessionId)\b/g, '1')
    .replace(':filename', 'rec-00000000000000000000000000000000.webm')
    .replace('*path', 'avatars/00000000000000000000000000000000.png');

/** An empty JSON body, except on HEAD (no body by HTTP; superagent refuses one). */
const withEmptyBody = (req: request.Test, method: Route['method']) => (method === 'head' ? req : req.send({}));

const key = (r: Route) => `${r.method.toUpperCase()} ${r.path}`;
const scopes = (r: Route) => [r.access.pat ?? []].flat().sort().join(',');

/**
 * Access across modules, from the declarations of the running app (so a route added later is
 * covered without editing this file): spec §5.3 (where a PAT is accepted, and 401 everywhere else),
 * §5.5 (Viewer is read-only, with the same message on every write, cookie or PAT).
 */
describe('access across modules (spec §5)', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  let admin: TestMember;
  let viewer: TestMember;
  let adminPat: string;
  let viewerPat: string;
  let routes: Route[];

  beforeAll(async () => {
    relay = await startTestRelay();
    members = new MemberFactory(relay);
    admin = await members.admin();
    viewer = await members.member('Viewer');
    adminPat = await members.pat(admin, 'view,builds:write,agent');
    viewerPat = await members.pat(viewer, 'view,builds:write');
    routes = declaredRoutes(relay);
  });
  afterAll(() => relay.close());

  it('every route declares its access', () => {
    expect(routes.length).toBeGreaterThan(40);
    expect(routes.filter((r) => !r.access).map(key)).toEqual([]);
  });

  it('PATs are accepted exactly where spec §5.3 says (plus the documented beyond-spec routes), with those scopes', () => {
    const withPat = Object.fromEntries(routes.filter((r) => r.access.pat).map((r) => [key(r), scopes(r)]));
    expect(withPat).toEqual({
      'POST /api/v1/builds': 'builds:write',
      'GET /api/v1/builds': 'builds:write',
      'GET /api/v1/builds/:id': 'builds:write',
      'GET /api/v1/builds/:id/download': 'agent,builds:write,view', // docs/builds.md, beyond the spec
      'GET /api/v1/builds/:id/history': 'builds:write', // docs/builds.md, beyond the spec: GET build's access
      'GET /api/v1/builds/:id/changes': 'builds:write', // docs/integrations.md "What changed", beyond the spec: GET build's access
      'POST /api/v1/comments': 'builds:write',
      'GET /api/v1/webhooks': 'builds:write',
      'POST /api/v1/webhooks': 'builds:write',
      'PATCH /api/v1/webhooks/:id': 'builds:write',
      'DELETE /api/v1/webhooks/:id': 'builds:write',
      'GET /api/v1/webhooks/:id/deliveries': 'builds:write', // docs/webhooks.md, beyond the spec
      'POST /api/v1/webhooks/:id/test': 'builds:write', // docs/webhooks.md, beyond the spec; Admin only
      'GET /api/v1/apps': 'view',
      'GET /api/v1/sessions/:sessionId/screenshot': 'view',
      'GET /api/v1/sessions/:sessionId/ui-tree': 'view',
      'GET /uploads/*path': 'view',
      'GET /api/v1/builds/:id/icon': 'builds:write,view', // docs/builds.md "App icons", like the download
      'GET /api/v1/apps/:id/icon': 'view', // like GET /apps
      'GET /api/v1/devices': 'view', // docs/agents.md, like the sessions routes
      // docs/recordings.md, beyond the spec: recording a session takes the session socket's access
      'POST /api/v1/sessions/:sessionId/recordings': 'view',
      'POST /api/v1/sessions/:sessionId/recordings/stop': 'view',
      'GET /api/v1/sessions/:sessionId/recordings/current': 'view',
      // docs/builds.md "Contents and comparison" and "Flagged builds", beyond the spec: a build's reads
      // take GET /builds/:id's scope, the app's sizes GET /apps' (PUT compare-settings is cookie-only)
      'GET /api/v1/builds/:id/contents': 'builds:write',
      'GET /api/v1/builds/:id/compare': 'builds:write',
      'GET /api/v1/apps/:id/compare-settings': 'builds:write',
      'GET /api/v1/apps/:id/sizes': 'view',
      // docs/builds.md "Share links", beyond the spec: create and revoke like POST /builds, list like GET /builds/:id
      'POST /api/v1/builds/:id/share-links': 'builds:write',
      'GET /api/v1/builds/:id/share-links': 'builds:write',
      'DELETE /api/v1/builds/:id/share-links/:linkId': 'builds:write',
      // docs/webhooks.md "Config-file webhooks", beyond the spec: read-only, like the API webhooks
      'GET /api/v1/webhooks/config': 'builds:write',
      'GET /api/v1/webhooks/config/:index/deliveries': 'builds:write',
      'POST /api/v1/webhooks/config/:index/test': 'builds:write',
      // docs/mcp.md: the endpoint takes either scope; each tool is then held to its own route's
      'POST /api/v1/mcp': 'builds:write,view',
      'GET /api/v1/mcp': 'builds:write,view',
      'DELETE /api/v1/mcp': 'builds:write,view',
      // docs/builds.md "Resumable uploads": tus, with POST /builds' access
      'POST /api/v1/uploads/builds': 'builds:write',
      'HEAD /api/v1/uploads/builds/:id': 'builds:write',
      'PATCH /api/v1/uploads/builds/:id': 'builds:write',
      'DELETE /api/v1/uploads/builds/:id': 'builds:write',
      // docs/integrations.md "Testers": writes like POST /builds, reads like GET /apps
      'GET /api/v1/apps/:id/testers': 'view',
      'POST /api/v1/apps/:id/testers': 'builds:write',
      'PATCH /api/v1/apps/:id/testers/:testerId': 'builds:write',
      'DELETE /api/v1/apps/:id/testers/:testerId': 'builds:write',
      'GET /api/v1/apps/:id/latest-links': 'view',
      'POST /api/v1/apps/:id/latest-links': 'builds:write',
      'DELETE /api/v1/apps/:id/latest-links/:linkId': 'builds:write',
      // docs/integrations.md "Issue trackers": report like POST /builds, read like GET /apps
      'GET /api/v1/builds/:id/issues': 'view',
      'POST /api/v1/builds/:id/issues': 'builds:write',
      // docs/release-gate.md: reads take either scope; POST reviews accepts a token only to refuse it with a sentence
      'GET /api/v1/builds/:id/gate': 'builds:write,view',
      'GET /api/v1/builds/:id/reviews': 'builds:write,view',
      'POST /api/v1/builds/:id/reviews': 'builds:write,view',
      'GET /api/v1/release-gate/states': 'builds:write,view',
      // docs/device-tests.md: the WebDriver hub's New Session (and Appium's base path)
      'POST /api/v1/wd/hub/session,session': 'devices',
      // docs/device-tests.md "Results": CI uploads JUnit with a builds:write or devices token; reads take any of the three
      'GET /api/v1/builds/:id/test-runs': 'builds:write,devices,view',
      'POST /api/v1/builds/:id/test-runs': 'builds:write,devices',
    });
  });

  it('Viewer read-only routes are exactly the writes of spec §5.5', () => {
    const writes = routes.filter((r) => r.access.roles && WRITER_ROLES.every((role) => r.access.roles!.includes(role)) && !r.access.roles.includes('Viewer'));
    expect(writes.map(key).sort()).toEqual(
      [
        'POST /api/v1/builds',
        'PATCH /api/v1/builds/:id',
        'POST /api/v1/builds/:id/schedule-deletion',
        'DELETE /api/v1/builds/:id/schedule-deletion',
        'POST /api/v1/apps',
        'PATCH /api/v1/apps/:id',
        'DELETE /api/v1/apps/:id',
        'GET /api/v1/webhooks',
        'POST /api/v1/webhooks',
        'PATCH /api/v1/webhooks/:id',
        'DELETE /api/v1/webhooks/:id',
        'GET /api/v1/webhooks/:id/deliveries',
        // beyond the spec, held like their neighbours: share links like POST /builds (docs/builds.md),
        // config-file webhooks like GET /webhooks (docs/webhooks.md)
        'POST /api/v1/builds/:id/share-links',
        'DELETE /api/v1/builds/:id/share-links/:linkId',
        'GET /api/v1/webhooks/config',
        'GET /api/v1/webhooks/config/:index/deliveries',
        'POST /api/v1/uploads/builds',
        'HEAD /api/v1/uploads/builds/:id',
        'PATCH /api/v1/uploads/builds/:id',
        'DELETE /api/v1/uploads/builds/:id',
        // testers, latest-build links, tracker issues and reviews: a writer's (docs/integrations.md, docs/release-gate.md);
        // the WebDriver hub: running device sessions (docs/device-tests.md)
        'POST /api/v1/apps/:id/testers',
        'PATCH /api/v1/apps/:id/testers/:testerId',
        'DELETE /api/v1/apps/:id/testers/:testerId',
        'POST /api/v1/apps/:id/latest-links',
        'DELETE /api/v1/apps/:id/latest-links/:linkId',
        'POST /api/v1/builds/:id/issues',
        'POST /api/v1/builds/:id/reviews',
        'POST /api/v1/wd/hub/session,session',
        'POST /api/v1/builds/:id/test-runs',
      ].sort(),
    );
  });

  it('every cookie-only route answers a valid full-scope PAT with 401 { error: "Unauthorized" }', async () => {
    // SCIM routes take a SCIM token only, answered in SCIM's error shape (test/identity/scim.e2e-spec.ts).
    const cookieOnly = routes.filter((r) => r.access && !r.access.public && !r.access.pat && !r.access.scim);
    expect(cookieOnly.length).toBeGreaterThan(25);
    const answers: string[] = [];
    for (const route of cookieOnly) {
      const res = await withEmptyBody(members.withPat(adminPat, route.method, concrete(route.path)), route.method);
      answers.push(`${key(route)} → ${res.status} ${JSON.stringify(res.body)}`);
    }
    expect(answers).toEqual(cookieOnly.map((r) => `${key(r)} → 401 {"error":"Unauthorized"}`));
    await members.as(admin, 'get', '/api/v1/auth/me').expect(200); // and nothing above touched the Admin
  });

  it('a PAT-accepting route takes that PAT (never 401) with any accepted scope', async () => {
    const answers: string[] = [];
    for (const route of routes.filter((r) => r.access.pat)) {
      const res = await withEmptyBody(members.withPat(adminPat, route.method, concrete(route.path)), route.method);
      if (res.status === 401 || res.status === 403) answers.push(`${key(route)} → ${res.status}`);
    }
    expect(answers).toEqual([]);
  });

  it('a Viewer gets 403 "Viewers have read-only access" on every write, by cookie and by PAT (401 where PATs are not accepted)', async () => {
    // The WebDriver hub lives outside /api/v1 and speaks WebDriver's errors: test/device-tests holds it.
    const writes = routes.filter(
      (r) => r.access.roles && !r.access.roles.includes('Viewer') && WRITER_ROLES.every((role) => r.access.roles!.includes(role)) && !r.path.includes('wd/hub'),
    );
    // A review says why a Viewer cannot give one (docs/release-gate.md), beyond the spec's writes.
    const refusal = (route: Route) =>
      key(route) === 'POST /api/v1/builds/:id/reviews' ? 'Viewers cannot review builds: a review needs the Admin, Developer or QA role' : 'Viewers have read-only access';
    const answers: string[] = [];
    const expected: string[] = [];
    for (const route of writes) {
      const url = concrete(route.path);
      const byCookie = await withEmptyBody(members.as(viewer, route.method, url), route.method);
      const byPat = await withEmptyBody(members.withPat(viewerPat, route.method, url), route.method);
      // A HEAD answer has no body (HTTP): only its status can be compared.
      const message = (text: string) => (route.method === 'head' ? '(no body)' : text);
      const error = (res: { body: { error?: string } }) => message(String(res.body.error));
      answers.push(`${key(route)}: cookie ${byCookie.status} ${error(byCookie)}; PAT ${byPat.status} ${error(byPat)}`);
      const patAnswer = route.access.pat ? `403 ${message(refusal(route))}` : `401 ${message('Unauthorized')}`;
      expected.push(`${key(route)}: cookie 403 ${message(refusal(route))}; PAT ${patAnswer}`);
    }
    expect(answers).toEqual(expected);
  });

  it('a Viewer gets plain 403 "Forbidden" on Admin-only routes (not the read-only message)', async () => {
    const adminOnly = routes.filter((r) => r.access.roles?.length === 1 && r.access.roles[0] === 'Admin');
    expect(adminOnly.length).toBeGreaterThanOrEqual(6);
    for (const route of adminOnly) {
      const res = await withEmptyBody(members.as(viewer, route.method, concrete(route.path)), route.method);
      expect(`${key(route)} → ${res.status} ${res.body.error}`).toBe(`${key(route)} → 403 Forbidden`);
    }
  });

  it('what a Viewer may do still works: read builds and apps, list recordings, edit the profile, issue a token', async () => {
    await members.withPat(viewerPat, 'get', '/api/v1/builds').expect(200);
    await members.withPat(viewerPat, 'get', '/api/v1/apps').expect(200);
    await members.as(viewer, 'get', '/api/v1/recordings').expect(200);
    await members.as(viewer, 'patch', '/api/v1/profile').field('display_name', 'Vic').expect(200);
    await members.as(viewer, 'post', '/api/v1/tokens').send({ name: 'mine', scope: 'view' }).expect(201);
  });
});

import { RequestMethod } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter, NestExpressApplication } from '@nestjs/platform-express';
import { json, raw, type RequestHandler } from 'express';
import { readFileSync } from 'node:fs';
import { AppModule, type ExtraImports } from '../app.module';
import { bodyParserErrors } from '../common/errors/body-parser-errors';
import { AuthenticatorService } from '../auth/authenticator.service';
import { signInOnCanonicalOrigin } from '../auth/canonical-origin';
import { Clock } from '../common/clock';
import { shareConnectionsByAddress } from '../common/net/connection-shares';
import { CredentialExpiry } from '../common/net/credential-expiry';
import { compressResponses } from '../common/net/compressed-responses';
import { inSequence } from '../common/net/in-sequence';
import { isLoopback } from '../common/net/ip-address';
import { hasRequestBody, requestDeadline } from '../common/net/request-deadline';
import { UpgradeRoutingWsAdapter } from '../common/net/upgrade-routing-ws-adapter';
import { weakETag } from '../common/net/etag';
import { rejectMalformedJson } from '../common/validation/well-formed-input';
import { RelayConfig } from '../config/relay-config';
import { TunnelUrl } from '../config/tunnel-url';
import { JsonLogger } from '../logging/json-logger';
import { logRequests } from '../logging/request-log';
import { recordHttpMetrics } from '../metrics/http-metrics.middleware';
import { RelayMetrics } from '../metrics/relay-metrics';
import { PublicUrlService } from '../relay/public-url.service';
import { applyServerTimeouts, headersCheckIntervalMs, requestIdleTimeout } from './http-timeouts';
import { serveDashboard } from '../dashboard/dashboard';
import { setupOpenApi } from './openapi';
import { appTrustProxy } from '../platform/express/trust-proxy';
import { installPlatform } from '../platform/install';

export const API_PREFIX = 'api/v1';

const wsAdapters = new WeakMap<object, UpgradeRoutingWsAdapter>();

/** The WebSocket adapter of a relay app (graceful shutdown closes its sockets first). */
export function wsAdapterOf(app: object): UpgradeRoutingWsAdapter | undefined {
  return wsAdapters.get(app);
}

/**
 * Routes served at the relay root rather than under /api/v1 (spec §1: files under /uploads/;
 * /metrics where Prometheus looks by default; the share links' /install pages). The
 * pages the e-mailed links open (/invite, /reset-password) are dashboard routes (src/dashboard).
 */
const ROOT_ROUTES = [
  // GET only: /api/v1/uploads/builds (resumable uploads: POST, HEAD, PATCH, DELETE, OPTIONS) stays prefixed.
  { path: 'uploads/*path', method: RequestMethod.GET },
  { path: 'metrics', method: RequestMethod.GET },
  // The page a share link opens (docs/builds.md "Share links"), where the link points: the relay root.
  { path: 'install/:token', method: RequestMethod.GET },
  // Its password form posts back to it; its one script (times in the visitor's zone).
  { path: 'install/:token', method: RequestMethod.POST },
  { path: 'install/script/local-times.js', method: RequestMethod.GET },
  // A tester's permanent "latest build" link and its download; a tester's one-click unsubscribe (docs/integrations.md "Testers").
  { path: 'install/latest/:token', method: RequestMethod.GET },
  { path: 'install/latest/:token/download', method: RequestMethod.GET },
  { path: 'unsubscribe/:token', method: RequestMethod.GET },
  { path: 'unsubscribe/:token', method: RequestMethod.POST },
  // SCIM 2.0 (docs/identity.md): identity providers are given <relay>/scim/v2 as the base URL.
  { path: 'scim/v2/*path', method: RequestMethod.ALL },
  // The WebDriver hub (docs/device-tests.md): clients take <relay>/wd/hub, or <relay> as Appium 2's base path.
  { path: 'wd/hub/*path', method: RequestMethod.ALL },
  { path: 'session', method: RequestMethod.POST },
  { path: 'session/*path', method: RequestMethod.ALL },
];

/** Paths whose JSON bodies are signed by their sender: the raw bytes are kept as `req.rawBody`. */
const SIGNED_WEBHOOK_PREFIX = '/api/v1/integrations/trackers/';

/** Slack's Request URL (src/chat/slack): a form-encoded `payload` signed over its raw bytes. */
const SLACK_ACTIONS_PATH = '/api/v1/integrations/slack/actions';

/** Slack's button presses, kept as raw bytes (`req.rawBody`) for the signature; the service parses the form itself. */
function slackActionBodies(): RequestHandler {
  const parse = raw({ limit: '100kb', type: 'application/x-www-form-urlencoded' });
  return (req, res, next) => {
    if (req.method !== 'POST' || req.path !== SLACK_ACTIONS_PATH || !hasRequestBody(req)) return next();
    parse(req, res, (err?: Error) => {
      if (err) return bodyParserErrors(err, req, res, next);
      if (Buffer.isBuffer(req.body)) (req as typeof req & { rawBody?: Buffer }).rawBody = req.body;
      req.body = {};
      next();
    });
  };
}

/** JSON bodies are small; builds and files arrive as streamed multipart, never through this parser. */
const JSON_BODY_LIMIT = '1mb';

/**
 * JSON bodies parsed (body-parser, its errors as fixed-message 400s) and held to
 * malformedInputProblem, in one middleware that a request without a body passes straight through:
 * the parser would only find that out itself, three middleware hops later.
 */
function jsonBodies(): RequestHandler {
  // application/scim+json is SCIM's JSON (RFC 7644 §3.1), sent by identity providers to /scim/v2.
  const parse = json({
    limit: JSON_BODY_LIMIT,
    type: ['application/json', 'application/scim+json'],
    // A tracker's webhook is verified against the bytes it signed (src/trackers/webhooks).
    verify: (req, _res, raw) => {
      if (req.url?.startsWith(SIGNED_WEBHOOK_PREFIX)) (req as typeof req & { rawBody?: Buffer }).rawBody = raw;
    },
  });
  return (req, res, next) => {
    if (!hasRequestBody(req)) return next();
    parse(req, res, (err?: Error) => (err ? bodyParserErrors(err, req, res, next) : rejectMalformedJson(req, res, next)));
  };
}

/**
 * Peers that stand for many clients, exempt from the per-address connection share: a proxy that
 * SVC_TRUST_PROXY trusts (Express's compiled setting, so the rule is the one `req.ip` follows), and
 * loopback while a tunnel is known (cloudflared, ngrok and Tailscale connect from loopback).
 */
function sharedFrontDoors(app: NestExpressApplication): (address: string) => boolean {
  const trust = appTrustProxy(app);
  const tunnel = app.get(TunnelUrl);
  return (address) => trust(address, 0) || (tunnel.current() !== null && isLoopback(address));
}

/**
 * Builds the relay application (not yet listening). Shared by `npm start`, `svc relay` and the tests;
 * `extraImports` lets a test mount probe routes behind the same guard, filter and pipes.
 */
export async function createRelayApp(
  config: RelayConfig,
  logger = new JsonLogger(config.logLevel),
  extraImports: ExtraImports = [],
) {
  // A TLS connection reaches the HTTP parser (and its headers timeout) only after its handshake.
  const httpsOptions =
    config.tlsCert && config.tlsKey
      ? { cert: readFileSync(config.tlsCert), key: readFileSync(config.tlsKey), handshakeTimeout: config.limits.headersTimeoutMs }
      : undefined;
  // The engine room's HTTP adapter (src/platform/express), given the server options Node reads only
  // at creation; Nest's own adapter without it.
  const serverOptions = { connectionsCheckingInterval: headersCheckIntervalMs(config.limits) };
  const { adapter } = installPlatform('http-adapter', { adapter: null, serverOptions });
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config, logger, extraImports), adapter ?? new ExpressAdapter(), {
    logger,
    bodyParser: false,
    httpsOptions,
    abortOnError: false,
  });
  installPlatform('app', app);
  app.set('trust proxy', config.trustProxy);
  app.disable('x-powered-by');
  // Express's own weak ETag, computed with one crypto.hash call (src/common/net/etag.ts).
  app.set('etag', weakETag);
  applyServerTimeouts(app.getHttpServer(), config.limits);
  shareConnectionsByAddress(app.getHttpServer(), {
    perAddress: config.limits.maxConnectionsPerAddress,
    isSharedFrontDoor: sharedFrontDoors(app),
  });
  const authenticator = app.get(AuthenticatorService);
  const publicUrl = app.get(PublicUrlService);
  // Every request meets these first, in this order, as one entry of Express's stack (in-sequence.ts).
  app.use(
    inSequence(
      // First, so every request gets its line: root routes, unknown paths and body-parser failures too.
      logRequests(logger),
      // Nothing reads the HTTP series unless /metrics is exposed: without it, no per-request timing and histogram (issue 42).
      ...(config.metrics.enabled ? [recordHttpMetrics(app.get(RelayMetrics))] : []),
      // JSON and pages over 1 KB, by Accept-Encoding; files and the event stream pass untouched.
      compressResponses,
      requestIdleTimeout,
      requestDeadline(config.limits.requestTimeoutMs),
      jsonBodies(),
      slackActionBodies(),
      // The sign-in page only on the canonical origin (docs/deploy.md "One public address"), before the dashboard serves it.
      signInOnCanonicalOrigin(() => publicUrl.publicBaseUrl(), (req) => authenticator.isFromRelayHost(req)),
      // Before Nest's routes: the dashboard owns every extension-less GET outside /api/ and /uploads/.
      ...serveDashboard(config.webDir),
    ),
  );
  app.setGlobalPrefix(API_PREFIX, { exclude: ROOT_ROUTES });
  // WebSocket upgrades go through the same authenticator as HTTP routes, with the gateway's @Auth.
  const clock = app.get(Clock);
  const wsAdapter = new UpgradeRoutingWsAdapter(
    app,
    // Async: the adapter takes a refusal as a rejected promise, never a throw.
    async (req, requirement) => authenticator.authenticate(req, requirement),
    new CredentialExpiry(() => clock.nowMs()),
  );
  app.useWebSocketAdapter(wsAdapter);
  wsAdapters.set(app, wsAdapter);
  // No enableShutdownHooks(): signals are handled by stopOnSignals (graceful-shutdown.ts), once.
  setupOpenApi(app);
  return app;
}

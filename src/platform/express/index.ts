import type { Piece } from '../piece';
import { packageDir, sha256Of } from '../packages';

/** Express as @nestjs/platform-express loads it (the relay's one copy). */
const EXPRESS = '@nestjs/platform-express > express';
const CHECKED = { express: '5.2.1', [EXPRESS]: '5.2.1', '@nestjs/platform-express': '11.2.10' } as const;

interface ExpressInternals {
  (): unknown;
  application: Record<'handle' | 'set' | 'defaultConfiguration', unknown>;
}
/** Loaded when a fingerprint is taken, not with this list. */
const expressModule = () => require(packageDir(EXPRESS)) as ExpressInternals;

const relayHttpAdapter: Piece<'http-adapter'> = {
  name: 'express request and response classes',
  changes:
    "Nest's ExpressAdapter.initHttpServer overridden: Node builds requests and responses as subclasses whose prototypes replace Express's app.request/app.response, so app.handle's setPrototypeOf changes nothing",
  why: 'about 30 % of the relay CPU of a list request (docs/decisions.md#item-49)',
  checkedAgainst: CHECKED,
  phase: 'http-adapter',
  fingerprint: () => {
    const { ExpressAdapter } = require(packageDir('@nestjs/platform-express')) as { ExpressAdapter: typeof import('@nestjs/platform-express').ExpressAdapter };
    return sha256Of([String(ExpressAdapter.prototype.initHttpServer), String(expressModule()), String(expressModule().application.handle)]);
  },
  expected: ['8c671bfff48d4b2206fb2b47c806a674905a60b7861e5d23a6baabfd8fb845b7'],
  install: (slot) => {
    // Required here: a CLI command's application context loads this list, not Express.
    const { RelayHttpAdapter } = require('./relay-http-adapter') as typeof import('./relay-http-adapter');
    slot.adapter = new RelayHttpAdapter(slot.serverOptions);
  },
};

const routeGroups: Piece<'http-adapter'> = {
  name: 'api route groups',
  changes:
    "the routes Nest registers through the adapter (RouterExplorer calls its get, post…, RouterMethodFactory) go into one Express Router per /api/v1/<resource>, dispatched from one layer of the app's stack (route-groups.ts)",
  why: 'a request tests its resource\'s routes, not ~150 patterns before a late module\'s route: ~4 % of the soak\'s CPU (docs/decisions.md#issue-42-route-groups)',
  checkedAgainst: { '@nestjs/core': '11.2.10', ...CHECKED },
  phase: 'http-adapter',
  fingerprint: () => {
    const core = packageDir('@nestjs/core');
    const { RouterMethodFactory } = require(`${core}/helpers/router-method-factory`) as { RouterMethodFactory: { prototype: { get: unknown } } };
    const { RouterExplorer } = require(`${core}/router/router-explorer`) as { RouterExplorer: { prototype: { applyCallbackToRouter: unknown } } };
    return sha256Of([String(RouterMethodFactory.prototype.get), String(RouterExplorer.prototype.applyCallbackToRouter)]);
  },
  expected: ['65610c02b9c0cb70ab99a8a66d9e5cbcc633cafb67db74ade88c3a910da7fd0e'],
};

const jsonReplies: Piece<'http-adapter'> = {
  name: 'json replies',
  changes:
    "Nest's ExpressAdapter.reply overridden for a handler's object: Content-Type set as res.json sets it and the JSON sent as a Buffer through res.send (its ETag, Content-Length, 304 and HEAD), without res.json's setting lookups and send's charset parsing",
  why: 'every JSON answer paid mime-types and content-type parsing for a constant type (issue 42, docs/performance.md engine room; json-reply.spec.ts holds bytes and headers equal)',
  checkedAgainst: CHECKED,
  phase: 'http-adapter',
  fingerprint: () => {
    const { ExpressAdapter } = require(packageDir('@nestjs/platform-express')) as { ExpressAdapter: typeof import('@nestjs/platform-express').ExpressAdapter };
    const response = require(`${packageDir(EXPRESS)}/lib/response`) as Record<'json' | 'send', unknown>;
    return sha256Of([String(ExpressAdapter.prototype.reply), String(response.json), String(response.send)]);
  },
  expected: ['481c6dd3b66a3fc9366c9f94c385b4026fa93deb343d547e470258889de9d7ab'],
};

const trustProxy: Piece<'app'> = {
  name: "express 'trust proxy fn' reader",
  changes: "reads Express's compiled trust proxy function (an internal setting) for the relay-host rule (trustProxyOf) and the per-address connection share's trusted proxies (appTrustProxy)",
  why: 'the forwarded hops judged exactly as req.ip judges them, with no second parse of the setting (docs/auth.md relay-host rule)',
  checkedAgainst: CHECKED,
  phase: 'app',
  fingerprint: () => sha256Of([String(expressModule().application.set), String(expressModule().application.defaultConfiguration)]),
  expected: ['b6e2c35763433285c4d2baf34f39b89cfc79491a2546dff72cf78b500a36372e'],
};

export const pieces = [relayHttpAdapter, routeGroups, jsonReplies, trustProxy];

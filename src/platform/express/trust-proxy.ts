import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Request } from 'express';
import type { IncomingMessage } from 'node:http';

/** Express's compiled `trust proxy` setting: is the address at this hop a trusted proxy? */
export type TrustFn = (addr: string, hop: number) => boolean;

/**
 * Express's compiled `trust proxy` function, when the request went through Express: the relay-host
 * rule asks it about the hops of X-Forwarded-For exactly as `req.ip` does. Express keeps it as an
 * internal setting ('trust proxy fn', compiled by `app.set`); read here only.
 */
export function trustProxyOf(req: IncomingMessage): TrustFn | undefined {
  return (req as Partial<Request>).app?.get('trust proxy fn') as TrustFn | undefined;
}

/**
 * The same function read from the app, after `app.set('trust proxy', …)`: the per-address connection
 * share exempts the proxies `req.ip` trusts (create-app.ts, sharedFrontDoors).
 */
export function appTrustProxy(app: NestExpressApplication): TrustFn {
  return app.getHttpAdapter().getInstance().get('trust proxy fn') as TrustFn;
}

/**
 * The framework floor for bench/framework-floor: one tiny authenticated JSON answer
 * (`{"items":[],"total":1000000}`, what GET /builds says of a page past the end) served by the
 * relay's HTTP stack with nothing of the relay in it, to tell the stack's own cost per request
 * from the relay's.
 * - `node`: node:http, the bearer token's SHA-256 compared with the expected one (the floors' check);
 * - `express`: the same check as a middleware and one route on Express 5, the relay's version;
 * - `nest`: NestJS on its Express adapter: a global guard making the same check, one controller
 *   route writing the body with `res.send(Buffer)` (the relay's list does).
 * Both on the relay's own adapter (src/platform/express, RelayHttpAdapter): without it Express's
 * per-request setPrototypeOf alone cost node:http's answer several times over.
 * Usage: node -r ts-node/register/transpile-only bench/baselines/framework-floor-server.ts <kind> <port>
 */
import 'reflect-metadata';
import { CanActivate, Controller, ExecutionContext, Get, Injectable, Module, Res } from '@nestjs/common';
import { APP_GUARD, NestFactory } from '@nestjs/core';
import type { Express, Request, Response } from 'express';
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { RelayHttpAdapter } from '../../src/platform/express/relay-http-adapter';
import { bearerHash } from './list-query';

const [kind, portArg] = process.argv.slice(2);
const port = Number(portArg);
const FLOOR_TOKEN = 'svc_pat_framework-floor-token';
const EXPECTED = createHash('sha256').update(FLOOR_TOKEN).digest('hex');
const BODY = Buffer.from(JSON.stringify({ items: [], total: 1_000_000 }));

/** The floors' check (list-query.ts): the bearer token's SHA-256 against the expected one. */
function authorised(header: string | undefined): boolean {
  return bearerHash(header) === EXPECTED;
}

function json(res: ServerResponse, status: number, body: Buffer): void {
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length });
  res.end(body);
}

const UNAUTHORISED = Buffer.from('{"error":"Unauthorized"}');
const listening = () => process.stdout.write(`${kind} listening on ${port}\n`);

@Injectable()
class BearerGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    return authorised(context.switchToHttp().getRequest<Request>().headers.authorization);
  }
}

@Controller('api/v1/builds')
class FloorController {
  @Get()
  list(@Res() res: Response): void {
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.send(BODY);
  }
}

@Module({ controllers: [FloorController], providers: [{ provide: APP_GUARD, useClass: BearerGuard }] })
class FloorModule {}

async function main(): Promise<void> {
  if (kind === 'node') {
    createServer((req: IncomingMessage, res: ServerResponse) => (authorised(req.headers.authorization) ? json(res, 200, BODY) : json(res, 401, UNAUTHORISED))).listen(port, '127.0.0.1', listening);
  } else if (kind === 'express') {
    const adapter = new RelayHttpAdapter();
    adapter.initHttpServer({});
    const app = adapter.getInstance<Express>();
    app.use((req, res, next) => (authorised(req.headers.authorization) ? next() : res.status(401).json({ error: 'Unauthorized' })));
    app.get('/api/v1/builds', (_req, res) => {
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      res.send(BODY);
    });
    (adapter.getHttpServer() as Server).listen(port, '127.0.0.1', listening);
  } else if (kind === 'nest') {
    const app = await NestFactory.create(FloorModule, new RelayHttpAdapter(), { logger: false });
    await app.listen(port, '127.0.0.1');
    listening();
  } else {
    throw new Error(`unknown kind ${kind}: node, express or nest`);
  }
}

void main();

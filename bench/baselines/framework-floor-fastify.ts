/**
 * The framework floor's answer (framework-floor-server.ts) on Fastify, for bench/framework-floor with
 * BENCH_FASTIFY_DIR: would NestJS on its Fastify adapter, in place of the relay's Express, lift the
 * bound that stack puts on issue 42's smallest answers?
 * - `nest-fastify`: NestJS on @nestjs/platform-fastify, a global guard making the floors' check, one
 *   route sending the body as a Buffer, as the `nest` kind does on the relay's Express adapter;
 * - `fastify`: Fastify alone, the check in the route.
 * Fastify is not one of the relay's dependencies: every package comes from BENCH_FASTIFY_DIR, a folder
 * where they were installed at the relay's NestJS version (bench/framework-floor.ts says how), so
 * NestJS here is that folder's copy, never mixed with the relay's.
 * Usage: node -r ts-node/register/transpile-only bench/baselines/framework-floor-fastify.ts <dir> <kind> <port>
 */
import type { CanActivate, ExecutionContext } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { bearerHash } from './list-query';

const [dir, kind, portArg] = process.argv.slice(2);
const port = Number(portArg);
const load = createRequire(join(dir, 'package.json'));
load('reflect-metadata');
const { Controller, Get, Injectable, Module, Res } = load('@nestjs/common') as typeof import('@nestjs/common');
const { APP_GUARD, NestFactory } = load('@nestjs/core') as typeof import('@nestjs/core');

const EXPECTED = createHash('sha256').update('svc_pat_framework-floor-token').digest('hex');
const BODY = Buffer.from(JSON.stringify({ items: [], total: 1_000_000 }));
const UNAUTHORISED = Buffer.from('{"error":"Unauthorized"}');
const JSON_TYPE = 'application/json; charset=utf-8';

interface Reply {
  code(status: number): Reply;
  header(name: string, value: string): Reply;
  send(body: Buffer): Reply;
}

@Injectable()
class BearerGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    return bearerHash(context.switchToHttp().getRequest<{ headers: Record<string, string | undefined> }>().headers.authorization) === EXPECTED;
  }
}

@Controller('api/v1/builds')
class FloorController {
  @Get()
  list(@Res() reply: Reply): void {
    reply.header('Content-Type', JSON_TYPE).send(BODY);
  }
}

@Module({ controllers: [FloorController], providers: [{ provide: APP_GUARD, useClass: BearerGuard }] })
class FloorModule {}

async function main(): Promise<void> {
  if (kind === 'nest-fastify') {
    const { FastifyAdapter } = load('@nestjs/platform-fastify') as { FastifyAdapter: new () => object };
    const app = await NestFactory.create(FloorModule, new FastifyAdapter() as never, { logger: false });
    await app.listen(port, '127.0.0.1');
  } else if (kind === 'fastify') {
    type Route = (req: { headers: Record<string, string | undefined> }, reply: Reply) => void;
    const fastify = (load('fastify') as () => { get(path: string, route: Route): void; listen(o: object): Promise<unknown> })();
    fastify.get('/api/v1/builds', (req, reply) => {
      if (bearerHash(req.headers.authorization) === EXPECTED) reply.header('Content-Type', JSON_TYPE).send(BODY);
      else reply.code(401).header('Content-Type', JSON_TYPE).send(UNAUTHORISED);
    });
    await fastify.listen({ port, host: '127.0.0.1' });
  } else {
    throw new Error(`unknown kind ${kind}: nest-fastify or fastify`);
  }
  process.stdout.write(`${kind} listening on ${port}\n`);
}

void main();

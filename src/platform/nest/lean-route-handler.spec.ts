import {
  Body,
  CanActivate,
  Controller,
  ExecutionContext,
  Get,
  Header,
  HttpCode,
  Injectable,
  Module,
  Param,
  PipeTransform,
  Post,
  Query,
  Redirect,
  Res,
  StreamableFile,
  UseGuards,
  UsePipes,
  createParamDecorator,
  type INestApplication,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { RouterExecutionContext } from '@nestjs/core/router/router-execution-context';
import type { Response } from 'express';
import { Readable } from 'node:stream';
import { of } from 'rxjs';
import request from 'supertest';
import { installLeanRouteHandlers, leanHandler, type ExecutionContextInternals } from './lean-route-handler';

/** What each route did, in order: the lean closure must call guards, pipes and handlers as Nest's does. */
const calls: string[] = [];

@Injectable()
class Gate implements CanActivate {
  canActivate(context: ExecutionContext) {
    const gate = context.switchToHttp().getRequest<{ query: Record<string, string> }>().query.gate;
    calls.push(`gate ${gate ?? 'open'} ${context.getType()} ${context.getClass().name}.${context.getHandler().name}`);
    if (gate === 'false') return false;
    if (gate === 'promise-false') return Promise.resolve(false);
    if (gate === 'observable') return of(true);
    if (gate === 'observable-false') return of(false);
    if (gate === 'throws') throw new Error('gate broke');
    return Promise.resolve(true);
  }
}

/** A pipe answering at once or later, or refusing either way, by the value it gets. */
class Doubling implements PipeTransform {
  transform(value: unknown) {
    calls.push(`pipe ${String(value)}`);
    if (value === 'bad') throw new Error('refused at once');
    if (value === 'later-bad') return Promise.reject(new Error('refused later'));
    if (typeof value === 'string' && value.startsWith('later')) return Promise.resolve(`${value}${value}`);
    return typeof value === 'string' ? `${value}${value}` : value;
  }
}

const Caller = createParamDecorator((data: string, ctx: ExecutionContext) => `${data}:${ctx.switchToHttp().getRequest<{ method: string }>().method}`);

@Controller('cases')
@UseGuards(Gate)
class CasesController {
  @Get('plain/:id')
  plain(@Param('id', Doubling) id: string, @Query('q', Doubling) q: string, @Caller('who') who: string) {
    calls.push('handler plain');
    return { id, q, who };
  }

  @Post('created')
  async created(@Body() body: unknown) {
    calls.push('handler created');
    return { body };
  }

  @Get('status')
  @HttpCode(202)
  status() {
    return 'accepted';
  }

  @Get('observable')
  observable() {
    return of({ from: 'observable' });
  }

  @Get('throws')
  throws() {
    throw new Error('handler broke');
  }

  @Get('empty')
  empty() {
    return undefined;
  }

  @Get('handled')
  handled(@Res() res: Response) {
    res.status(207).json({ handled: true });
  }

  /** The status Nest sets before the handler (201 for a POST) is what a handled response keeps. */
  @Post('handled')
  handledCreated(@Res() res: Response) {
    res.json({ handled: 'created' });
  }

  @Get('passthrough')
  passthrough(@Res({ passthrough: true }) res: Response) {
    res.setHeader('X-Passed', 'yes');
    return { passed: true };
  }

  @Get('file')
  file() {
    return new StreamableFile(Readable.from(['file ', 'bytes']));
  }

  @Get('header')
  @Header('X-Custom', 'kept')
  header() {
    return { header: true };
  }

  @Get('redirect')
  @Redirect('/elsewhere', 301)
  redirect() {
    return undefined;
  }

  @Get('route-pipes/:a')
  @UsePipes(Doubling)
  routePipes(@Param('a', Doubling) a: string) {
    return { a };
  }
}

@Module({ controllers: [CasesController], providers: [Gate] })
class CasesModule {}

const CASES: [method: 'get' | 'post', path: string, body?: object][] = [
  ['get', '/cases/plain/7?q=x'],
  ['get', '/cases/plain/later?q=later'],
  ['get', '/cases/plain/bad?q=x'],
  ['get', '/cases/plain/later-bad?q=bad'],
  ['get', '/cases/plain/7?q=x&gate=false'],
  ['get', '/cases/plain/7?q=x&gate=promise-false'],
  ['get', '/cases/plain/7?q=x&gate=observable'],
  ['get', '/cases/plain/7?q=x&gate=observable-false'],
  ['get', '/cases/plain/7?q=x&gate=throws'],
  ['post', '/cases/created', { a: 1 }],
  ['get', '/cases/status'],
  ['get', '/cases/observable'],
  ['get', '/cases/throws'],
  ['get', '/cases/empty'],
  ['get', '/cases/handled'],
  ['post', '/cases/handled'],
  ['get', '/cases/passthrough'],
  ['get', '/cases/file'],
  ['get', '/cases/header'],
  ['get', '/cases/redirect'],
  ['get', '/cases/route-pipes/z'],
];

/** Every case's status, headers a client sees, body, and the calls it made. */
async function answers(app: INestApplication) {
  const seen = [];
  for (const [method, path, body] of CASES) {
    calls.length = 0;
    const res = await request(app.getHttpServer())[method](path).send(body);
    const headers = Object.fromEntries(['content-type', 'content-length', 'x-custom', 'x-passed', 'location'].map((name) => [name, res.headers[name]]));
    seen.push({ path, status: res.status, headers, text: res.text, calls: [...calls] });
  }
  return seen;
}

async function appWith(lean: boolean): Promise<INestApplication> {
  if (lean) installLeanRouteHandlers(RouterExecutionContext.prototype as never);
  const app = await NestFactory.create(CasesModule, { logger: false });
  await app.init();
  return app;
}

describe("the lean route handler answers as Nest's own", () => {
  it('gives every case the same status, headers, body, and guard, pipe and handler calls in the same order', async () => {
    const nestApp = await appWith(false);
    const nest = await answers(nestApp);
    await nestApp.close();
    const leanApp = await appWith(true);
    const lean = await answers(leanApp);
    await leanApp.close();
    expect(lean).toEqual(nest);
    // The cases cover each branch: refusals by guard and pipe, a 201, a 202, an Observable, a handled response, a file.
    expect(nest.map((c) => c.status)).toEqual([200, 200, 500, 500, 403, 403, 200, 403, 500, 201, 202, 200, 500, 200, 207, 201, 200, 200, 200, 301, 200]);
    expect(nest[1].text).toBe('{"id":"laterlater","q":"laterlater","who":"who:GET"}');
  });

  it('takes the routes it can and leaves the others to Nest', async () => {
    const taken: string[] = [];
    const original = RouterExecutionContext.prototype.create;
    // Spy on which routes get a lean closure: the same decision create() makes.
    RouterExecutionContext.prototype.create = function (this: ExecutionContextInternals, ...args: Parameters<typeof original>) {
      if (leanHandler(this, args as never)) taken.push(args[2]);
      return original.apply(this as never, args);
    } as typeof original;
    try {
      const app = await NestFactory.create(CasesModule, { logger: false });
      await app.init();
      await app.close();
    } finally {
      RouterExecutionContext.prototype.create = original;
    }
    expect(taken.sort()).toEqual(['created', 'empty', 'file', 'handled', 'handledCreated', 'observable', 'passthrough', 'plain', 'routePipes', 'status', 'throws']);
  });
});

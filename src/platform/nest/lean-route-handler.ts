import { ForbiddenException, type CanActivate, type PipeTransform } from '@nestjs/common';
import { isObservable, lastValueFrom } from 'rxjs';
import { packageFile } from '../packages';

/** What the per-request closure reads of Nest's RouterExecutionContext (@nestjs/core 11.2.10). */
interface ParamOption {
  index: number;
  type: number | string;
  data: unknown;
  metatype: unknown;
  pipes: PipeTransform[];
  extractValue(req: unknown, res: unknown, next: unknown): unknown;
}
interface HandlerMetadata {
  argsLength: number;
  isSseHandler: boolean;
  hasCustomHeaders: boolean;
  httpStatusCode: number;
  paramtypes: unknown[] | undefined;
  fnHandleResponse(result: unknown, res: unknown, req: unknown, observable?: unknown, files?: unknown[]): Promise<unknown>;
  getParamsMetadata(moduleKey: string, contextId?: unknown, inquirerId?: string): ParamOption[];
}
export interface ExecutionContextInternals {
  getMetadata(instance: object, callback: Function, methodName: string, moduleKey: string, requestMethod: number, contextType: 'http'): HandlerMetadata;
  isResponseHandled(instance: object, methodName: string, params: ParamOption[]): boolean;
  isPipeable(type: number | string): boolean;
  reflectRenderTemplate(callback: Function): unknown;
  reflectRedirect(callback: Function): unknown;
  contextUtils: { mergeParamsMetatypes(params: ParamOption[], paramtypes: unknown[] | undefined): ParamOption[] };
  pipesContextCreator: { create(...args: unknown[]): PipeTransform[] };
  guardsContextCreator: { create(...args: unknown[]): CanActivate[] };
  interceptorsContextCreator: { create(...args: unknown[]): unknown[] };
  pipesConsumer: { paramsTokenFactory: { exchangeEnumForString(type: number | string): string } };
  responseController: { setStatus(res: unknown, status: number): void };
  applicationRef: { reply(res: unknown, body: unknown, status?: number): unknown };
}
type Create = (this: ExecutionContextInternals, ...args: CreateArgs) => RouteHandler;
type CreateArgs = [instance: object, callback: Function, methodName: string, moduleKey: string, requestMethod: number, contextId?: unknown, inquirerId?: string];
type RouteHandler = (req: object, res: object, next: Function) => Promise<void>;

/** Nest's own helpers the closure calls, from the copy of @nestjs/core the relay loads. */
const nest = {
  STATIC_CONTEXT: () => (require(packageFile('@nestjs/core', 'injector/constants')) as { STATIC_CONTEXT: unknown }).STATIC_CONTEXT,
  FORBIDDEN_MESSAGE: () => (require(packageFile('@nestjs/core', 'guards/constants')) as { FORBIDDEN_MESSAGE: string }).FORBIDDEN_MESSAGE,
  ExecutionContextHost: () =>
    (require(packageFile('@nestjs/core', 'helpers/execution-context-host')) as { ExecutionContextHost: new (args: unknown[], type: Function, handler: Function) => { setType(type: string): void } })
      .ExecutionContextHost,
  markRejectedByPipes: () => (require(packageFile('@nestjs/core', 'router/rejected-by-pipes')) as { markRejectedByPipes(req: unknown): void }).markRejectedByPipes,
  destroyStreamableFile: () => (require(packageFile('@nestjs/core', 'helpers/destroy-streamable-file')) as { destroyStreamableFile(value: unknown): void }).destroyStreamableFile,
};

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  value !== null && (typeof value === 'object' || typeof value === 'function') && typeof (value as { then?: unknown }).then === 'function';

const LEAN = Symbol('svc lean route handler');

/**
 * RouterExecutionContext.create, for a route with no interceptor, no custom headers, no SSE,
 * render or redirect and the static context (all of the relay's routes but a few with `@Header`): a closure that does
 * what Nest's does (guards in order, the status, the parameters through their pipes, the handler,
 * the reply) with an `await` only where a value is a promise. Nest's runs about fifteen async
 * functions a request (the guards' consumer, the interceptors' with none to run, each parameter's
 * pipes through a reduce over promises, the response's transform and apply); each costs the event
 * loop a microtask and, while the transactions' AsyncLocalStorage is on (PostgreSQL under writes),
 * a hook per promise (issue 42, docs/performance.md engine room). Any other route gets Nest's own.
 */
export function installLeanRouteHandlers(prototype: { create: Create }): void {
  if ((prototype.create as { [LEAN]?: true })[LEAN]) return;
  const original = prototype.create;
  const create: Create = function (this: ExecutionContextInternals, ...args: CreateArgs) {
    const nestHandler = original.apply(this, args);
    return leanHandler(this, args) ?? nestHandler;
  };
  Object.defineProperty(create, LEAN, { value: true });
  prototype.create = create;
}

/** The same route's lean closure, or null when it uses something only Nest's handles. */
export function leanHandler(context: ExecutionContextInternals, [instance, callback, methodName, moduleKey, requestMethod, contextId = nest.STATIC_CONTEXT(), inquirerId]: CreateArgs): RouteHandler | null {
  if (contextId !== nest.STATIC_CONTEXT()) return null;
  const metadata = context.getMetadata(instance, callback, methodName, moduleKey, requestMethod, 'http');
  if (metadata.isSseHandler || metadata.hasCustomHeaders || context.reflectRenderTemplate(callback) || context.reflectRedirect(callback)) return null;
  if (context.interceptorsContextCreator.create(instance, callback, moduleKey, contextId, inquirerId).length) return null;

  const paramsMetadata = metadata.getParamsMetadata(moduleKey, contextId, inquirerId);
  const responseHandled = context.isResponseHandled(instance, methodName, paramsMetadata);
  const routePipes = context.pipesContextCreator.create(instance, callback, moduleKey, contextId, inquirerId);
  const guards = context.guardsContextCreator.create(instance, callback, moduleKey, contextId, inquirerId);
  const params = context.contextUtils.mergeParamsMetatypes(paramsMetadata, metadata.paramtypes).map((param) => ({
    index: param.index,
    extractValue: param.extractValue,
    pipes: context.isPipeable(param.type) ? routePipes.concat(param.pipes) : [],
    metatype: param.metatype,
    type: context.pipesConsumer.paramsTokenFactory.exchangeEnumForString(param.type),
    data: param.data,
  }));
  const { argsLength, httpStatusCode, fnHandleResponse } = metadata;
  const { responseController, applicationRef } = context;
  const ExecutionContextHost = nest.ExecutionContextHost();
  const forbiddenMessage = nest.FORBIDDEN_MESSAGE();
  const markRejectedByPipes = nest.markRejectedByPipes();
  const destroyStreamableFile = nest.destroyStreamableFile();

  /** A parameter's value through its pipes in order, a promise only once one of them answers with one. */
  function throughPipes(param: (typeof params)[number], value: unknown, from = 0): unknown {
    for (let at = from; at < param.pipes.length; at++) {
      value = param.pipes[at].transform(value, { metatype: param.metatype as never, type: param.type as never, data: param.data as never });
      if (isThenable(value)) return Promise.resolve(value).then((settled) => throughPipes(param, settled, at + 1));
    }
    return value;
  }

  /** Every parameter into `args`, all begun before any is awaited (as Nest's Promise.all). */
  function applyPipes(args: unknown[], req: object, res: object, next: Function): Promise<unknown> | undefined {
    let pending: Promise<unknown>[] | undefined;
    for (const param of params) {
      let value: unknown;
      try {
        value = throughPipes(param, param.extractValue(req, res, next));
      } catch (error) {
        value = Promise.reject(error);
      }
      if (isThenable(value)) (pending ??= []).push(Promise.resolve(value).then((settled) => (args[param.index] = settled)));
      else args[param.index] = value;
    }
    return pending && Promise.all(pending);
  }

  return async (req, res, next) => {
    const args: unknown[] = new Array(argsLength).fill(undefined);
    if (guards.length) {
      const host = new ExecutionContextHost([req, res, next], instance.constructor, callback);
      host.setType('http');
      for (const guard of guards) {
        let allowed: unknown = guard.canActivate(host as never);
        if (allowed === true) continue;
        // As GuardsConsumer.pickResult reads an answer: a promise awaited, an Observable's last value.
        if (allowed !== false) allowed = await allowed;
        if (isObservable(allowed)) allowed = await lastValueFrom(allowed);
        if (!allowed) throw new ForbiddenException(forbiddenMessage);
      }
    }
    responseController.setStatus(res, httpStatusCode);
    try {
      const pending = params.length ? applyPipes(args, req, res, next) : undefined;
      if (pending) await pending;
    } catch (error) {
      markRejectedByPipes(req);
      throw error;
    }
    let result: unknown = callback.apply(instance, args);
    if (isThenable(result)) result = await result;
    if (isObservable(result)) {
      await fnHandleResponse(result, res, req, undefined, []);
      return;
    }
    if (responseHandled) return;
    try {
      const replied = applicationRef.reply(res, result, httpStatusCode);
      if (isThenable(replied)) await replied;
    } catch (error) {
      destroyStreamableFile(result);
      throw error;
    }
  };
}

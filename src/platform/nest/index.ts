import type { Piece } from '../piece';
import { packageFile, sha256Of } from '../packages';

type Proto = { prototype: Record<string, unknown> };
/** A @nestjs/core module's export, loaded when a fingerprint is taken or the piece installed. */
const exported = (file: string, name: string) => (require(packageFile('@nestjs/core', `${file}.js`)) as Record<string, unknown>)[name];
/** A @nestjs/core class's prototype. */
const core = (file: string, name: string) => (exported(file, name) as Proto).prototype;

const leanRouteHandlers: Piece<'app'> = {
  name: 'nest route handlers without the async layers',
  changes:
    "RouterExecutionContext.create returns, for a route without interceptors, custom headers, SSE, render, redirect or a request scope, a closure doing what Nest's does (guards, status, pipes, handler, reply) that awaits only promises; any other route keeps Nest's (lean-route-handler.ts)",
  why: "Nest's closure runs about fifteen async functions a request whatever they await, and each promise pays the transactions' async hook on PostgreSQL (issue 42, docs/performance.md engine room)",
  checkedAgainst: { '@nestjs/core': '11.2.10' },
  phase: 'app',
  // What the lean closure does in Nest's place, and what it calls of Nest's to set itself up.
  fingerprint: () => {
    const context = core('router/router-execution-context', 'RouterExecutionContext');
    const guards = core('guards/guards-consumer', 'GuardsConsumer');
    const pipes = core('pipes/pipes-consumer', 'PipesConsumer');
    const response = core('router/router-response-controller', 'RouterResponseController');
    const utils = core('helpers/context-utils', 'ContextUtils');
    return sha256Of(
      [
        ...['create', 'getMetadata', 'exchangeKeysForValues', 'isPipeable', 'createGuardsFn', 'createPipesFn', 'createHandleResponseFn', 'isResponseHandled'].map((name) => context[name]),
        guards.tryActivate,
        guards.pickResult,
        pipes.apply,
        pipes.applyPipes,
        response.apply,
        response.transformToResult,
        response.setStatus,
        utils.createNullArray,
        utils.mergeParamsMetatypes,
        // The helpers and constants the lean closure takes from Nest (lean-route-handler.ts `nest`).
        exported('helpers/execution-context-host', 'ExecutionContextHost'),
        exported('router/rejected-by-pipes', 'markRejectedByPipes'),
        exported('helpers/destroy-streamable-file', 'destroyStreamableFile'),
        JSON.stringify(exported('injector/constants', 'STATIC_CONTEXT')),
        exported('guards/constants', 'FORBIDDEN_MESSAGE'),
      ].map(String),
    );
  },
  expected: ['f68894ebc81117b442b0333301b22dc57c83ea188c70a8f4885d50cc95879e11'],
  install: () => {
    const { installLeanRouteHandlers } = require('./lean-route-handler') as typeof import('./lean-route-handler');
    installLeanRouteHandlers(core('router/router-execution-context', 'RouterExecutionContext') as never);
  },
};

export const pieces = [leanRouteHandlers];

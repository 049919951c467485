import { RequestMethod } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { json } from 'express';
import { readFileSync } from 'node:fs';
import { AppModule, type ExtraImports } from '../app.module';
import { bodyParserErrors } from '../common/errors/body-parser-errors';
import { HttpErrorFilter } from '../common/errors/http-error.filter';
import { RelayWsAdapter } from '../common/net/relay-ws-adapter';
import { createValidationPipe } from '../common/validation/validation.pipe';
import { RelayConfig } from '../config/relay-config';
import { RelayLogger } from '../logging/relay-logger';
import { logRequests } from '../logging/request-log';
import { applyServerTimeouts, requestIdleTimeout } from './http-timeouts';
import { setupOpenApi } from './openapi';

export const API_PREFIX = 'api/v1';

/** Routes served at the relay root rather than under /api/v1 (spec §1: files under /uploads/; link pages). */
const ROOT_ROUTES = [
  { path: 'uploads/*path', method: RequestMethod.ALL },
  { path: 'invite', method: RequestMethod.GET },
  { path: 'reset-password', method: RequestMethod.GET },
];

/** JSON bodies are small; builds and files arrive as streamed multipart, never through this parser. */
const JSON_BODY_LIMIT = '1mb';

/**
 * Builds the relay application (not yet listening). Shared by `npm start`, `svc relay` and the tests;
 * `extraImports` lets a test mount probe routes behind the same guard, filter and pipes.
 */
export async function createRelayApp(
  config: RelayConfig,
  logger = new RelayLogger(config.logLevel),
  extraImports: ExtraImports = [],
) {
  const httpsOptions =
    config.tlsCert && config.tlsKey
      ? { cert: readFileSync(config.tlsCert), key: readFileSync(config.tlsKey) }
      : undefined;
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config, logger, extraImports), {
    logger,
    bodyParser: false,
    httpsOptions,
    abortOnError: false,
  });
  app.set('trust proxy', config.trustProxy);
  app.disable('x-powered-by');
  applyServerTimeouts(app.getHttpServer());
  // First, so every request gets its line: root routes, unknown paths and body-parser failures too.
  app.use(logRequests);
  app.use(requestIdleTimeout, json({ limit: JSON_BODY_LIMIT }), bodyParserErrors);
  app.setGlobalPrefix(API_PREFIX, { exclude: ROOT_ROUTES });
  app.useGlobalFilters(new HttpErrorFilter());
  app.useGlobalPipes(createValidationPipe());
  app.useWebSocketAdapter(new RelayWsAdapter(app));
  app.enableShutdownHooks();
  setupOpenApi(app);
  return app;
}

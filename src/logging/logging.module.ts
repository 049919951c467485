import { DynamicModule, Global, Module } from '@nestjs/common';
import { LogsController } from './logs.controller';
import { JsonLogger } from './json-logger';

/** The one logger and GET /logs. The request log line is mounted in createRelayApp, ahead of every route. */
@Global()
@Module({})
export class LoggingModule {
  static forRoot(logger: JsonLogger): DynamicModule {
    return {
      module: LoggingModule,
      controllers: [LogsController],
      providers: [{ provide: JsonLogger, useValue: logger }],
      exports: [JsonLogger],
    };
  }
}

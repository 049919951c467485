import { DynamicModule, Global, Module } from '@nestjs/common';
import { LogsController } from './logs.controller';
import { RelayLogger } from './relay-logger';

/** The one logger and GET /logs. The request log line is mounted in createRelayApp, ahead of every route. */
@Global()
@Module({})
export class LoggingModule {
  static forRoot(logger: RelayLogger): DynamicModule {
    return {
      module: LoggingModule,
      controllers: [LogsController],
      providers: [{ provide: RelayLogger, useValue: logger }],
      exports: [RelayLogger],
    };
  }
}

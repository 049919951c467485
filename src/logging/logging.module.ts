import { DynamicModule, Global, MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { LogsController } from './logs.controller';
import { RelayLogger } from './relay-logger';
import { RequestLoggerMiddleware } from './request-logger.middleware';

@Global()
@Module({})
export class LoggingModule implements NestModule {
  static forRoot(logger: RelayLogger): DynamicModule {
    return {
      module: LoggingModule,
      controllers: [LogsController],
      providers: [{ provide: RelayLogger, useValue: logger }],
      exports: [RelayLogger],
    };
  }

  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(RequestLoggerMiddleware).forRoutes('*');
  }
}

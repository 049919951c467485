import { DynamicModule, Global, Module } from '@nestjs/common';
import { RelayConfig } from './relay-config';

/** Provides the validated RelayConfig everywhere; the config is loaded before Nest starts. */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: RelayConfig): DynamicModule {
    return {
      module: ConfigModule,
      providers: [{ provide: RelayConfig, useValue: config }],
      exports: [RelayConfig],
    };
  }
}

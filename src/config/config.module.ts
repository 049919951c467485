import { DynamicModule, Global, Module } from '@nestjs/common';
import { RelayConfig } from './relay-config';
import { TunnelUrl } from './tunnel-url';

/**
 * Provides the validated RelayConfig everywhere (frozen: nothing changes it at run time; the one
 * value that does, the tunnel URL, is the TunnelUrl provider). The config is loaded before Nest starts.
 */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: RelayConfig): DynamicModule {
    return {
      module: ConfigModule,
      providers: [{ provide: RelayConfig, useValue: Object.freeze(config) }, TunnelUrl],
      exports: [RelayConfig, TunnelUrl],
    };
  }
}

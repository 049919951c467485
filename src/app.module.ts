import { DynamicModule, Module } from '@nestjs/common';
import { EventEmitterModule } from '@nestjs/event-emitter';
import { ScheduleModule } from '@nestjs/schedule';
import { AuthModule } from './auth/auth.module';
import { CommonModule } from './common/common.module';
import { ConfigModule } from './config/config.module';
import { RelayConfig } from './config/relay-config';
import { DatabaseModule } from './database/database.module';
import { HealthModule } from './health/health.module';
import { LoggingModule } from './logging/logging.module';
import { RelayLogger } from './logging/relay-logger';
import { MaintenanceModule } from './maintenance/maintenance.module';
import { RelayModule } from './relay/relay.module';
import { TokensModule } from './tokens/tokens.module';
import { UsersModule } from './users/users.module';

/** The whole relay. Config and logger are built before Nest starts, so a bad config never boots anything. */
@Module({})
export class AppModule {
  static forRoot(config: RelayConfig, logger: RelayLogger): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggingModule.forRoot(logger),
        CommonModule,
        EventEmitterModule.forRoot(),
        ScheduleModule.forRoot(),
        DatabaseModule,
        UsersModule,
        AuthModule,
        TokensModule,
        RelayModule,
        MaintenanceModule,
        HealthModule,
      ],
    };
  }
}

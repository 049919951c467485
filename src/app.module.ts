import { DynamicModule, Module, type ModuleMetadata } from '@nestjs/common';
import { EventEmitterModule } from '@nestjs/event-emitter';
import { ScheduleModule } from '@nestjs/schedule';
import { AppsModule } from './apps/apps.module';
import { AgentsModule } from './agents/agents.module';
import { AuthModule } from './auth/auth.module';
import { BuildsModule } from './builds/builds.module';
import { CommentsModule } from './comments/comments.module';
import { CommonModule } from './common/common.module';
import { ConfigModule } from './config/config.module';
import { RelayConfig } from './config/relay-config';
import { DatabaseModule } from './database/database.module';
import { InvitationsModule } from './invitations/invitations.module';
import { HealthModule } from './health/health.module';
import { LoggingModule } from './logging/logging.module';
import { RelayLogger } from './logging/relay-logger';
import { MailModule } from './mail/mail.module';
import { MaintenanceModule } from './maintenance/maintenance.module';
import { RecordingsModule } from './recordings/recordings.module';
import { RelayModule } from './relay/relay.module';
import { DeviceSessionsModule } from './sessions/device-sessions.module';
import { PasswordResetModule } from './password-reset/password-reset.module';
import { ProfileModule } from './profile/profile.module';
import { SettingsModule } from './settings/settings.module';
import { TeamModule } from './team/team.module';
import { TokensModule } from './tokens/tokens.module';
import { UploadsModule } from './uploads/uploads.module';
import { UsersModule } from './users/users.module';
import { WebhooksModule } from './webhooks/webhooks.module';

/** Modules added next to the relay's own, e.g. a test's probe routes. */
export type ExtraImports = NonNullable<ModuleMetadata['imports']>;

/** The whole relay. Config and logger are built before Nest starts, so a bad config never boots anything. */
@Module({})
export class AppModule {
  static forRoot(config: RelayConfig, logger: RelayLogger, extraImports: ExtraImports = []): DynamicModule {
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
        AppsModule,
        BuildsModule,
        AgentsModule,
        DeviceSessionsModule,
        RecordingsModule,
        MaintenanceModule,
        WebhooksModule,
        UploadsModule,
        MailModule,
        SettingsModule,
        ProfileModule,
        TeamModule,
        InvitationsModule,
        PasswordResetModule,
        CommentsModule,
        HealthModule,
        ...extraImports,
      ],
    };
  }
}

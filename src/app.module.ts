import { DynamicModule, Module, type ModuleMetadata } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { EventEmitterModule } from '@nestjs/event-emitter';
import { ScheduleModule } from '@nestjs/schedule';
import { AppsModule } from './apps/apps.module';
import { AgentsModule } from './agents/agents.module';
import { AuthGuard } from './auth/auth.guard';
import { AuditModule } from './audit/audit.module';
import { AuthModule } from './auth/auth.module';
import { BuildsModule } from './builds/builds.module';
import { ClusterModule } from './cluster/cluster.module';
import { CommentsModule } from './comments/comments.module';
import { CommonModule } from './common/common.module';
import { HttpErrorFilter } from './common/errors/http-error.filter';
import { createValidationPipe } from './common/validation/validation.pipe';
import { ConfigModule } from './config/config.module';
import { RelayConfig } from './config/relay-config';
import { DatabaseModule } from './database/database.module';
import { InvitationsModule } from './invitations/invitations.module';
import { HealthModule } from './health/health.module';
import { LiveEventsModule } from './live-events/live-events.module';
import { LoggingModule } from './logging/logging.module';
import { JsonLogger } from './logging/json-logger';
import { MailModule } from './mail/mail.module';
import { MaintenanceModule } from './maintenance/maintenance.module';
import { McpModule } from './mcp/mcp.module';
import { MetricsModule } from './metrics/metrics.module';
import { RecordingsModule } from './recordings/recordings.module';
import { RelayModule } from './relay/relay.module';
import { DeviceSessionsModule } from './sessions/device-sessions.module';
import { DeviceTestsModule } from './device-tests/device-tests.module';
import { PasswordResetModule } from './password-reset/password-reset.module';
import { ProfileModule } from './profile/profile.module';
import { SettingsModule } from './settings/settings.module';
import { ShareLinksModule } from './share-links/share-links.module';
import { StorageModule } from './storage/storage.module';
import { ScimModule } from './scim/scim.module';
import { TeamModule } from './team/team.module';
import { TokensModule } from './tokens/tokens.module';
import { TwoFactorModule } from './two-factor/two-factor.module';
import { ImagesModule } from './images/images.module';
import { UsersModule } from './users/users.module';
import { WebhooksModule } from './webhooks/webhooks.module';
import { ForgesModule } from './forges/forges.module';
import { ReleaseGateModule } from './release-gate/release-gate.module';
import { OutboxModule } from './outbox/outbox.module';
import { TestersModule } from './testers/testers.module';
import { ChatModule } from './chat/chat.module';
import { TrackersModule } from './trackers/trackers.module';

/** Modules added next to the relay's own, e.g. a test's probe routes. */
export type ExtraImports = NonNullable<ModuleMetadata['imports']>;

/**
 * The whole relay. Config and logger are built before Nest starts, so a bad config never boots anything.
 * `forRoot` is the relay process; `forOperator` is the same modules for a CLI command on the data dir
 * of a relay that may be running beside it: no scheduler and no maintenance, so it never sweeps the
 * relay's in-flight uploads or its renamed-but-uncommitted build files (only the relay sweeps, at its
 * own start-up and on its schedule).
 */
@Module({})
export class AppModule {
  static forRoot(config: RelayConfig, logger: JsonLogger, extraImports: ExtraImports = []): DynamicModule {
    return AppModule.build(config, logger, [ScheduleModule.forRoot(), MaintenanceModule, ...extraImports]);
  }

  static forOperator(config: RelayConfig, logger: JsonLogger): DynamicModule {
    return AppModule.build(config, logger, []);
  }

  private static build(config: RelayConfig, logger: JsonLogger, processImports: ExtraImports): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggingModule.forRoot(logger),
        CommonModule,
        StorageModule,
        MetricsModule,
        EventEmitterModule.forRoot(),
        DatabaseModule,
        ClusterModule,
        UsersModule,
        AuthModule,
        TokensModule,
        RelayModule,
        AppsModule,
        BuildsModule,
        ShareLinksModule,
        TestersModule,
        ChatModule,
        AgentsModule,
        DeviceSessionsModule,
        DeviceTestsModule,
        RecordingsModule,
        WebhooksModule,
        ReleaseGateModule,
        OutboxModule,
        ForgesModule,
        TrackersModule,
        ImagesModule,
        MailModule,
        SettingsModule,
        ProfileModule,
        TeamModule,
        ScimModule,
        InvitationsModule,
        PasswordResetModule,
        CommentsModule,
        LiveEventsModule,
        HealthModule,
        McpModule,
        AuditModule,
        TwoFactorModule,
        ...processImports,
      ],
      // The cross-cutting pieces, registered once: deny-by-default access guard (@Auth), the one
      // error filter ({ "error": … }), the one validation pipe. The request log line is Express
      // middleware mounted first in createRelayApp, so it also sees requests no route matches.
      providers: [
        { provide: APP_GUARD, useClass: AuthGuard },
        { provide: APP_FILTER, useClass: HttpErrorFilter },
        { provide: APP_PIPE, useFactory: createValidationPipe },
      ],
    };
  }
}

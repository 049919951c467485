import { Module } from '@nestjs/common';
import { AgentsModule } from '../agents/agents.module';
import { AuditModule } from '../audit/audit.module';
import { AuthModule } from '../auth/auth.module';
import { BuildsModule } from '../builds/builds.module';
import { CommentsModule } from '../comments/comments.module';
import { InvitationsModule } from '../invitations/invitations.module';
import { PasswordResetModule } from '../password-reset/password-reset.module';
import { RecordingsModule } from '../recordings/recordings.module';
import { SettingsModule } from '../settings/settings.module';
import { ImagesModule } from '../images/images.module';
import { UsersModule } from '../users/users.module';
import { ScheduledPurgesService } from './scheduled-purges.service';

@Module({
  imports: [
    UsersModule,
    AuthModule,
    BuildsModule,
    AgentsModule,
    RecordingsModule,
    InvitationsModule,
    PasswordResetModule,
    SettingsModule,
    CommentsModule,
    ImagesModule,
    AuditModule,
  ],
  providers: [ScheduledPurgesService],
  exports: [ScheduledPurgesService],
})
export class MaintenanceModule {}

import { Module } from '@nestjs/common';
import { AgentsModule } from '../agents/agents.module';
import { BuildsModule } from '../builds/builds.module';
import { CommentsModule } from '../comments/comments.module';
import { InvitationsModule } from '../invitations/invitations.module';
import { PasswordResetModule } from '../password-reset/password-reset.module';
import { RecordingsModule } from '../recordings/recordings.module';
import { SettingsModule } from '../settings/settings.module';
import { UploadsModule } from '../uploads/uploads.module';
import { ScheduledPurgesService } from './scheduled-purges.service';

@Module({
  imports: [
    BuildsModule,
    AgentsModule,
    RecordingsModule,
    InvitationsModule,
    PasswordResetModule,
    SettingsModule,
    CommentsModule,
    UploadsModule,
  ],
  providers: [ScheduledPurgesService],
  exports: [ScheduledPurgesService],
})
export class MaintenanceModule {}

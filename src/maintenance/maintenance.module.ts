import { Module } from '@nestjs/common';
import { AgentsModule } from '../agents/agents.module';
import { AuditModule } from '../audit/audit.module';
import { AuthModule } from '../auth/auth.module';
import { BuildsModule } from '../builds/builds.module';
import { InvitationsModule } from '../invitations/invitations.module';
import { PasswordResetModule } from '../password-reset/password-reset.module';
import { RecordingsModule } from '../recordings/recordings.module';
import { DeviceTestsModule } from '../device-tests/device-tests.module';
import { AutovacuumCheck } from './autovacuum-check';
import { ScheduledPurgesService } from './scheduled-purges.service';
import { ClusterModule } from '../cluster/cluster.module';
import { MetricsModule } from '../metrics/metrics.module';
import { StorageModule } from '../storage/storage.module';

@Module({
  imports: [
    StorageModule,
    MetricsModule,
    ClusterModule,
    AuthModule,
    BuildsModule,
    AgentsModule,
    RecordingsModule,
    DeviceTestsModule,
    InvitationsModule,
    PasswordResetModule,
    AuditModule,
  ],
  providers: [ScheduledPurgesService, AutovacuumCheck],
  exports: [ScheduledPurgesService],
})
export class MaintenanceModule {}

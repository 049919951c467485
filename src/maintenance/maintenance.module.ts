import { Module } from '@nestjs/common';
import { AgentsModule } from '../agents/agents.module';
import { BuildsModule } from '../builds/builds.module';
import { RecordingsModule } from '../recordings/recordings.module';
import { ScheduledPurgesService } from './scheduled-purges.service';

@Module({
  imports: [BuildsModule, AgentsModule, RecordingsModule],
  providers: [ScheduledPurgesService],
  exports: [ScheduledPurgesService],
})
export class MaintenanceModule {}

import { Module } from '@nestjs/common';
import { AgentsModule } from '../agents/agents.module';
import { RecordingsModule } from '../recordings/recordings.module';
import { ScheduledPurgesService } from './scheduled-purges.service';

@Module({ imports: [AgentsModule, RecordingsModule], providers: [ScheduledPurgesService], exports: [ScheduledPurgesService] })
export class MaintenanceModule {}

import { Module } from '@nestjs/common';
import { ScheduledPurgesService } from './scheduled-purges.service';

@Module({ providers: [ScheduledPurgesService], exports: [ScheduledPurgesService] })
export class MaintenanceModule {}

import { Module } from '@nestjs/common';
import { BuildsModule } from '../builds/builds.module';
import { ScheduledPurgesService } from './scheduled-purges.service';

@Module({ imports: [BuildsModule], providers: [ScheduledPurgesService], exports: [ScheduledPurgesService] })
export class MaintenanceModule {}

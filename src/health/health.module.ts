import { Module } from '@nestjs/common';
import { HealthController } from './health.controller';
import { HealthService } from './health.service';
import { ClusterModule } from '../cluster/cluster.module';
import { StorageModule } from '../storage/storage.module';
import { CommonModule } from '../common/common.module';

/** GET /api/v1/health (readiness: database, storage, Redis) and /health/live (liveness), public. */
@Module({
  imports: [CommonModule, StorageModule, ClusterModule],
  controllers: [HealthController],
  providers: [HealthService],
})
export class HealthModule {}

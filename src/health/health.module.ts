import { Module } from '@nestjs/common';
import { HealthController } from './health.controller';
import { HealthService } from './health.service';

/** GET /api/v1/health (readiness: database, storage, Redis) and /health/live (liveness), public. */
@Module({
  controllers: [HealthController],
  providers: [HealthService],
})
export class HealthModule {}

import { Module } from '@nestjs/common';
import { HealthController } from './health.controller';
import { HealthService } from './health.service';

/** GET /api/v1/health, public: 200 while the database answers, 503 otherwise. */
@Module({
  controllers: [HealthController],
  providers: [HealthService],
})
export class HealthModule {}

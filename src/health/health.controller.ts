import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../common/api/responses';
import { Auth } from '../common/auth/auth.decorator';
import { HealthResponse, LivenessResponse } from './health.mapper';
import { HealthService } from './health.service';

/** Readiness and liveness for load balancers and Kubernetes (docs/scaling.md "Health"). */
@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(private readonly health: HealthService) {}

  @Get()
  @Auth({ public: true })
  @ApiOkResponse({
    type: HealthResponse,
    description: 'readiness: the database, the file store and (when used) Redis answer; 503 names what is down',
  })
  @ApiErrors(503)
  check(): Promise<HealthResponse> {
    return this.health.check();
  }

  @Get('live')
  @Auth({ public: true })
  @ApiOkResponse({ type: LivenessResponse, description: 'liveness: the process answers; dependencies are not checked' })
  live(): LivenessResponse {
    return { status: 'ok' };
  }
}

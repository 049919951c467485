import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { Auth } from '../common/auth/auth.decorator';
import { HealthResponse, HealthService } from './health.service';

@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(private readonly health: HealthService) {}

  @Get()
  @Auth({ public: true })
  @ApiOkResponse({ description: '{ status: "ok", version, uptimeSeconds } when the database answers' })
  @ApiServiceUnavailableResponse({ description: '{ error: "Database unavailable" }' })
  check(): Promise<HealthResponse> {
    return this.health.check();
  }
}

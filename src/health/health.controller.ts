import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../common/api/responses';
import { Auth } from '../common/auth/auth.decorator';
import { HealthResponse } from './health.mapper';
import { HealthService } from './health.service';

@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(private readonly health: HealthService) {}

  @Get()
  @Auth({ public: true })
  @ApiOkResponse({ type: HealthResponse, description: 'the database answers' })
  @ApiErrors(503)
  check(): Promise<HealthResponse> {
    return this.health.check();
  }
}

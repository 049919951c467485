import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../common/api/responses';
import { Auth } from '../common/auth/auth.decorator';
import { RelayHostDetailsService } from './relay-host-details.service';
import { RelayLimitsService } from './relay-limits.service';
import { RelayHostDetails, RelayLimits } from './relay.mapper';

@ApiTags('relay')
@Controller('relay')
export class RelayController {
  constructor(
    private readonly host: RelayHostDetailsService,
    private readonly relayLimits: RelayLimitsService,
  ) {}

  @Get('host')
  @Auth({ cookie: true })
  @ApiOkResponse({ type: RelayHostDetails })
  @ApiErrors(401)
  hostDetails(): RelayHostDetails {
    return this.host.details();
  }

  @Get('limits')
  @Auth({ cookie: true })
  @ApiOperation({ summary: 'Beyond the spec: the limits the dashboard checks before sending a file' })
  @ApiOkResponse({ type: RelayLimits })
  @ApiErrors(401)
  limits(): RelayLimits {
    return this.relayLimits.limits();
  }
}

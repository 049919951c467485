import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../common/api/responses';
import { Auth } from '../common/auth/auth.decorator';
import { ADMIN_ONLY } from '../common/auth/role';
import { PublicUrlService } from './public-url.service';
import { RelayHostDetailsService } from './relay-host-details.service';
import { RelayLimitsService } from './relay-limits.service';
import { RelayHostDetails, RelayLimits, RelayWarnings } from './relay.mapper';

@ApiTags('relay')
@Controller('relay')
export class RelayController {
  constructor(
    private readonly host: RelayHostDetailsService,
    private readonly relayLimits: RelayLimitsService,
    private readonly publicUrl: PublicUrlService,
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

  @Get('warnings')
  @Auth({ cookie: true, roles: ADMIN_ONLY })
  @ApiOperation({ summary: "Beyond the spec: what an Admin should fix in the relay's configured addresses (the Relay page)" })
  @ApiOkResponse({ type: RelayWarnings })
  @ApiErrors(401, 403)
  warnings(): RelayWarnings {
    return { warnings: this.publicUrl.warnings(), lan_reason: this.host.lanAddress().reason };
  }
}

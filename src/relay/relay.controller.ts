import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../common/api/responses';
import { Auth } from '../common/auth/auth.decorator';
import { RelayHostDetailsService } from './relay-host-details.service';
import { RelayHostDetails } from './relay.mapper';

@ApiTags('relay')
@Controller('relay')
export class RelayController {
  constructor(private readonly host: RelayHostDetailsService) {}

  @Get('host')
  @Auth({ cookie: true })
  @ApiOkResponse({ type: RelayHostDetails })
  @ApiErrors(401)
  hostDetails(): RelayHostDetails {
    return this.host.details();
  }
}

import { Controller, Get } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Auth } from '../common/auth/auth.decorator';
import { RelayHostDetails, RelayHostDetailsService } from './relay-host-details.service';

@ApiTags('relay')
@Controller('relay')
export class RelayController {
  constructor(private readonly host: RelayHostDetailsService) {}

  @Get('host')
  @Auth({ cookie: true })
  hostDetails(): RelayHostDetails {
    return this.host.details();
  }
}

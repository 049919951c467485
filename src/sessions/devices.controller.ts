import { Controller, Get, Header } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../common/api/responses';
import { Auth } from '../common/auth/auth.decorator';
import type { Principal } from '../common/auth/principal';
import { CurrentPrincipal } from '../common/auth/principal.decorator';
import { DeviceList } from './device.mapper';
import { DeviceSessionsService } from './device-sessions.service';

/** Every device of every agent the relay knows (issue 13 §5). Same access as the sessions routes: cookie or PAT(view). */
@ApiTags('sessions')
@Controller('devices')
export class DevicesController {
  constructor(private readonly sessions: DeviceSessionsService) {}

  @Get()
  @Header('Cache-Control', 'no-store')
  @Auth({ cookie: true, pat: 'view' })
  @ApiOkResponse({
    type: DeviceList,
    description:
      'devices as their agents last listed them since the relay started, online agents and offline ones, ' +
      'ordered by agent name then device name',
  })
  @ApiErrors(401, 403)
  async list(@CurrentPrincipal() principal: Principal): Promise<DeviceList> {
    return { items: await this.sessions.devices(principal) };
  }
}

import { Controller, Delete, Get, HttpCode, Param, Query, Res } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { ApiFileResponse } from '../../common/api/files';
import { ApiErrors } from '../../common/api/responses';
import { Auth } from '../../common/auth/auth.decorator';
import type { Principal } from '../../common/auth/principal';
import { CurrentPrincipal } from '../../common/auth/principal.decorator';
import { ADMIN_ONLY } from '../../common/auth/role';
import { DeviceTestSession } from './device-test-session.mapper';
import { DeviceTestSessionsService } from './device-test-sessions.service';

/**
 * A WebDriver hub session's evidence (docs/device-tests.md "What is recorded"): beyond the spec.
 * Reading it has the recordings' access (session cookie, any role); ending one is an Admin's.
 */
@ApiTags('device-tests')
@Controller('device-test-sessions')
export class DeviceTestSessionsController {
  constructor(private readonly sessions: DeviceTestSessionsService) {}

  @Get()
  @Auth({ cookie: true })
  @ApiQuery({ name: 'buildId', required: true, schema: { type: 'integer', minimum: 1 } })
  @ApiOkResponse({ type: [DeviceTestSession], description: 'the build’s ended sessions still kept (72 hours), newest first, at most 200' })
  @ApiErrors(400, 401)
  list(@Query('buildId') buildId: unknown): Promise<DeviceTestSession[]> {
    return this.sessions.endedOfBuild(buildId);
  }

  @Get(':id')
  @Auth({ cookie: true })
  @ApiOkResponse({ type: DeviceTestSession, description: 'running (commands so far) or ended (with its recording, final screenshot and device log)' })
  @ApiErrors(401, 404)
  get(@Param('id') id: string): Promise<DeviceTestSession> {
    return this.sessions.get(id);
  }

  @Get(':id/screenshot')
  @Auth({ cookie: true })
  @ApiFileResponse(['image/png', 'image/jpeg'], 'the screen as Appium saw it just before the session was deleted')
  @ApiErrors(401, 404)
  screenshot(@Param('id') id: string, @Res() res: Response): Promise<void> {
    return this.sessions.sendScreenshot(id, res);
  }

  @Get(':id/log')
  @Auth({ cookie: true })
  @ApiFileResponse(['text/plain'], 'the device log (logcat or syslog) as Appium gave it at the end, its last MiB')
  @ApiErrors(401, 404)
  log(@Param('id') id: string, @Res() res: Response): Promise<void> {
    return this.sessions.sendLog(id, res);
  }

  @Delete(':id')
  @HttpCode(204)
  @Auth({ cookie: true, roles: ADMIN_ONLY })
  @ApiNoContentResponse({ description: 'the Appium session is deleted and the device freed; the client’s next command answers invalid session id' })
  @ApiErrors(401, 403, 404)
  end(@Param('id') id: string, @CurrentPrincipal() principal: Principal): Promise<void> {
    return this.sessions.end(id, principal);
  }
}

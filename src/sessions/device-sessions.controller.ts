import { Controller, Get, Header, Param, Query, StreamableFile } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Auth } from '../common/auth/auth.decorator';
import { DeviceSessionsService, parseScreenshotFormat } from './device-sessions.service';
import { UiElement } from './ui-element.mapper';

/** spec §4 Sessions: a device's screenshot and UI tree through its agent. Cookie or PAT(view). */
@ApiTags('sessions')
@Controller('sessions')
export class DeviceSessionsController {
  constructor(private readonly sessions: DeviceSessionsService) {}

  @Get(':sessionId/screenshot')
  @Header('Cache-Control', 'no-store')
  @Header('X-Content-Type-Options', 'nosniff')
  @Auth({ cookie: true, pat: 'view' })
  async screenshot(@Param('sessionId') sessionId: string, @Query('format') format: unknown): Promise<StreamableFile> {
    const shot = await this.sessions.screenshot(sessionId, parseScreenshotFormat(format));
    return new StreamableFile(shot.payload, { type: shot.mime, length: shot.payload.length });
  }

  @Get(':sessionId/ui-tree')
  @Header('Cache-Control', 'no-store')
  @Auth({ cookie: true, pat: 'view' })
  uiTree(@Param('sessionId') sessionId: string): Promise<{ elements: UiElement[] }> {
    return this.sessions.uiTree(sessionId);
  }
}

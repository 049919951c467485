import { Controller, Get, Header, Param, Query, Res } from '@nestjs/common';
import { ApiOkResponse, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { ApiFileResponse } from '../common/api/files';
import { ApiErrors } from '../common/api/responses';
import { sendChunks } from '../common/api/send-chunks';
import { Auth } from '../common/auth/auth.decorator';
import { DeviceSessionsService, parseScreenshotFormat } from './device-sessions.service';
import { UiTree } from '../agents/protocol/ui-tree';

/** spec §4 Sessions: a device's screenshot and UI tree through its agent. Cookie or PAT(view). */
@ApiTags('sessions')
@Controller('sessions')
export class DeviceSessionsController {
  constructor(private readonly sessions: DeviceSessionsService) {}

  @Get(':sessionId/screenshot')
  @Header('Cache-Control', 'no-store')
  @Header('X-Content-Type-Options', 'nosniff')
  @Auth({ cookie: true, pat: 'view' })
  @ApiQuery({ name: 'format', required: false, enum: ['png', 'jpeg'], schema: { default: 'png' } })
  @ApiFileResponse(['image/png', 'image/jpeg'], 'the device screen, in the requested format')
  @ApiErrors(400, 401, 403, 404, 409, 502, 503, 504)
  async screenshot(@Param('sessionId') sessionId: string, @Query('format') format: unknown, @Res() res: Response): Promise<void> {
    const shot = await this.sessions.screenshot(sessionId, parseScreenshotFormat(format));
    // 'finish' comes once every byte is with the kernel, after the writes' callbacks.
    res.once('finish', shot.written);
    sendChunks(res, shot.payload, shot.mime, shot.length);
  }

  @Get(':sessionId/ui-tree')
  @Header('Cache-Control', 'no-store')
  @Auth({ cookie: true, pat: 'view' })
  @ApiOkResponse({ type: UiTree, description: 'the agent has 15 seconds to answer' })
  @ApiErrors(401, 403, 404, 409, 502, 503, 504)
  uiTree(@Param('sessionId') sessionId: string): Promise<UiTree> {
    return this.sessions.uiTree(sessionId);
  }
}

import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../../common/api/responses';
import { Auth } from '../../common/auth/auth.decorator';
import type { Principal } from '../../common/auth/principal';
import { CurrentPrincipal } from '../../common/auth/principal.decorator';
import { Recording } from '../../recordings/recordings.mapper';
import { StartRecordingDto } from './dto/start-recording.dto';
import { RecordingInProgress } from './session-recording.mapper';
import { SessionRecordingsService } from './session-recordings.service';

/**
 * Recording a live device session to MP4 (docs/recordings.md). Whoever may drive the device may
 * record it: the same access as the device-session socket (cookie, or a PAT with `view`).
 */
@ApiTags('sessions')
@Controller('sessions/:sessionId/recordings')
export class SessionRecordingsController {
  constructor(private readonly recordings: SessionRecordingsService) {}

  @Post()
  @Auth({ cookie: true, pat: 'view' })
  @ApiBody({ type: StartRecordingDto, required: false })
  @ApiCreatedResponse({ type: RecordingInProgress, description: 'the video is written from the next key frame on' })
  @ApiErrors(400, 401, 403, 404, 409, 502)
  start(
    @Param('sessionId') sessionId: string,
    @Body() body: StartRecordingDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<RecordingInProgress> {
    return this.recordings.start(sessionId, body?.buildId ?? null, principal);
  }

  @Get('current')
  @Auth({ cookie: true, pat: 'view' })
  @ApiOkResponse({ type: RecordingInProgress })
  @ApiErrors(401, 403, 404)
  current(@Param('sessionId') sessionId: string): RecordingInProgress {
    return this.recordings.current(sessionId);
  }

  @Post('stop')
  @HttpCode(200)
  @Auth({ cookie: true, pat: 'view' })
  @ApiOkResponse({ type: Recording, description: 'the finished MP4 (kept 72 hours), its timeline at `<url>/timeline`' })
  @ApiErrors(401, 403, 404, 409)
  stop(@Param('sessionId') sessionId: string, @CurrentPrincipal() principal: Principal): Promise<Recording> {
    return this.recordings.stop(sessionId, principal);
  }
}

import { Controller, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiQuery, ApiTags } from '@nestjs/swagger';
import { ApiFileResponse, ApiMultipartBody, binaryFile } from '../common/api/files';
import { ApiErrors } from '../common/api/responses';
import type { Request, Response } from 'express';
import { Auth } from '../common/auth/auth.decorator';
import type { Principal } from '../common/auth/principal';
import { CurrentPrincipal } from '../common/auth/principal.decorator';
import { Recording, RecordingUploaded } from './recordings.mapper';
import { UploadRecordingQuery } from './dto/upload-recording.query';
import { RecordingsService } from './recordings.service';
import { RecordingTimeline } from './recording-timeline.mapper';

/** spec §4 Recordings. Session cookie only (§5.3 gives recordings no PAT scope). */
@ApiTags('recordings')
@Controller('recordings')
export class RecordingsController {
  constructor(private readonly recordings: RecordingsService) {}

  @Post('upload')
  @HttpCode(200)
  @Auth({ cookie: true })
  @ApiQuery({ name: 'sessionId', required: false, schema: { type: 'string', maxLength: 200 } })
  @ApiQuery({ name: 'buildId', required: false, schema: { type: 'integer', minimum: 1 } })
  @ApiMultipartBody(
    { file: binaryFile('one WebM, Matroska, MP4 or QuickTime video, in a field of any name') },
    ['file'],
  )
  @ApiOkResponse({ type: RecordingUploaded, description: 'the file is deleted 72 hours after upload' })
  @ApiErrors(400, 401, 403, 413)
  upload(
    @Req() req: Request,
    @Query() query: UploadRecordingQuery,
    @CurrentPrincipal() principal: Principal,
  ): Promise<RecordingUploaded> {
    return this.recordings.upload(req, query, principal.userId);
  }

  @Get()
  @Auth({ cookie: true })
  @ApiQuery({ name: 'buildId', required: false, schema: { type: 'integer', minimum: 1 } })
  @ApiOkResponse({ type: [Recording], description: 'live recordings, newest first' })
  @ApiErrors(400, 401)
  list(@Query('buildId') buildId: unknown): Promise<Recording[]> {
    return this.recordings.list(buildId);
  }

  /** What was done while a live session was recorded (docs/recordings.md "Timeline"). */
  @Get(':filename/timeline')
  @Auth({ cookie: true })
  @ApiOkResponse({ type: RecordingTimeline, description: 'recordings made from a live session only; an uploaded one answers 404' })
  @ApiErrors(401, 404)
  timeline(@Param('filename') filename: string, @Res() res: Response): Promise<void> {
    return this.recordings.sendTimeline(filename, res);
  }

  /** The file, with Range support (206 / 416) so browsers can seek. */
  @Get(':filename')
  @Auth({ cookie: true })
  @ApiFileResponse(
    ['video/webm', 'video/x-matroska', 'video/mp4', 'video/quicktime'],
    'the recording (Range requests answered 206, or 416)',
  )
  @ApiErrors(401, 404)
  download(@Param('filename') filename: string, @Res() res: Response): Promise<void> {
    return this.recordings.send(filename, res);
  }
}

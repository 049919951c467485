import { ApiProperty } from '@nestjs/swagger';

/** A recording of a live device session still being written (POST /sessions/:sessionId/recordings). */
export class RecordingInProgress {
  @ApiProperty({ example: 'b1f0c6a2-4f1e-4f57-9d0a-0b8f5b9c2e11', description: 'id of the recording in progress' })
  id: string;
  @ApiProperty({ enum: ['recording'] })
  state: 'recording';
  @ApiProperty({ example: 'fake-android-agent-1' })
  sessionId: string;
  @ApiProperty({ type: Number, nullable: true, description: 'the build under test the recording will be listed under' })
  buildId: number | null;
  @ApiProperty({ format: 'date-time' })
  startedAt: string;
  @ApiProperty({ format: 'date-time', description: 'when it stops by itself (the maximum duration)' })
  stopsAt: string;
  @ApiProperty({ description: 'who started it (e-mail)' })
  startedBy: string;
}

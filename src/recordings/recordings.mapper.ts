import { ApiProperty } from '@nestjs/swagger';
import { isoWithMillis } from '../common/time';
import type { RecordingEntity } from './recording.entity';

/** spec §2 "Recording". `sessionId` is null for a recording uploaded without one. */
export class Recording {
  @ApiProperty()
  id: number;
  @ApiProperty({ example: '/api/v1/recordings/rec-0123456789abcdef0123456789abcdef.webm' })
  url: string;
  @ApiProperty({ type: String, nullable: true, description: 'null when uploaded without one' })
  sessionId: string | null;
  @ApiProperty({ description: 'bytes' })
  fileSize: number;
  @ApiProperty({ example: 'video/webm' })
  mime: string;
  @ApiProperty({ format: 'date-time' })
  createdAt: string;
  @ApiProperty({ format: 'date-time', description: '72 hours after upload' })
  expiresAt: string;
}

/** POST /recordings/upload. */
export class RecordingUploaded {
  @ApiProperty({ example: '/api/v1/recordings/rec-0123456789abcdef0123456789abcdef.webm' })
  url: string;
}

export function recordingUrl(filename: string): string {
  return `/api/v1/recordings/${filename}`;
}

export function toRecording(recording: RecordingEntity): Recording {
  return {
    id: recording.id,
    url: recordingUrl(recording.filename),
    sessionId: recording.sessionId,
    fileSize: recording.fileSize,
    mime: recording.mime,
    createdAt: isoWithMillis(recording.createdAt),
    expiresAt: isoWithMillis(recording.expiresAt),
  };
}

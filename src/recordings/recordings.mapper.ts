import { isoWithMillis } from '../common/time';
import type { RecordingEntity } from './recording.entity';

/** spec §2 "Recording". `sessionId` is null for a recording uploaded without one. */
export interface Recording {
  id: number;
  url: string;
  sessionId: string | null;
  fileSize: number;
  mime: string;
  createdAt: string;
  expiresAt: string;
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

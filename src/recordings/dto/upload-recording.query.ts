import { Allow, IsOptional, IsString, MaxLength } from 'class-validator';
import { Transform } from 'class-transformer';

export const MAX_SESSION_ID_LENGTH = 200;
const SESSION_ID_RULE = `sessionId must be a string of at most ${MAX_SESSION_ID_LENGTH} characters`;

/** POST /recordings query string (the body is the video alone); validated by the global pipe. */
export class UploadRecordingQuery {
  /** Empty counts as absent; otherwise kept exactly as sent. */
  @IsOptional()
  @Transform(({ value }) => (value === '' ? undefined : value))
  @MaxLength(MAX_SESSION_ID_LENGTH, { message: SESSION_ID_RULE })
  @IsString({ message: SESSION_ID_RULE })
  sessionId?: string;

  /** Checked by the recordings' build-id rule (RecordingsService), as in GET /recordings. */
  @Allow()
  buildId?: unknown;
}

import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { MAX_ID } from '../../../common/validation/parse-id.pipe';

const BUILD_ID_RULE = `buildId must be an integer from 1 to ${MAX_ID}`;

/** POST /sessions/:sessionId/recordings (the body is optional). */
export class StartRecordingDto {
  /** The build under test; default: the last build installed on the session through the relay. */
  @IsOptional()
  @Max(MAX_ID, { message: BUILD_ID_RULE })
  @Min(1, { message: BUILD_ID_RULE })
  @IsInt({ message: BUILD_ID_RULE })
  buildId?: number;
}

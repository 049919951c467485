import { IsIn, IsInt, IsOptional, MaxLength, Min } from 'class-validator';
import { BlankAsAbsent, ToId } from '../../common/validation/transforms';
import { BUILD_STATUSES, BuildStatus } from '../build-status';
import { PLATFORMS, Platform } from '../../app-catalogue/platform';

const LABEL_MAX = 200;

/**
 * The optional text fields of POST /builds (multipart, spec §4), read with validateFields().
 * Blank fields count as omitted (HTML forms send them for blank inputs).
 */
export class UploadBuildFields {
  @IsOptional()
  @BlankAsAbsent()
  @IsIn(BUILD_STATUSES, { message: 'status must be one of Backlog, In Progress, Done, Rejected' })
  status?: BuildStatus;

  @IsOptional()
  @BlankAsAbsent()
  @IsIn(PLATFORMS, { message: 'platform must be ios or android' })
  platform?: Platform;

  /** readId's rule, after trimming (transforms run top-down); past MAX_ID the intake answers 404. */
  @IsOptional()
  @BlankAsAbsent()
  @ToId()
  @Min(1, { message: 'app_id must be a positive integer' })
  @IsInt({ message: 'app_id must be a positive integer' })
  app_id?: number;

  @IsOptional()
  @BlankAsAbsent()
  @MaxLength(LABEL_MAX, { message: `label must be at most ${LABEL_MAX} characters` })
  label?: string;
}

import { IsIn, IsInt, IsOptional, Matches, Max, MaxLength, Min } from 'class-validator';
import { MAX_ID } from '../../common/validation/parse-id.pipe';
import { BlankAsAbsent, ToId } from '../../common/validation/transforms';
import { BUILD_STATUSES, BuildStatus } from '../build-status';
import { PLATFORMS, Platform } from '../../app-catalogue/platform';

const LABEL_MAX = 200;
export const BRANCH_MAX = 255;
export const REPOSITORY_MAX = 200;
export const CI_URL_MAX = 2048;
export const CHANGELOG_MAX = 4000;
/** A full commit id: SHA-1 (40 hex) or SHA-256 (64 hex) repositories; abbreviated ones are refused. */
export const COMMIT_PATTERN = /^(?:[0-9a-fA-F]{40}|[0-9a-fA-F]{64})$/;
/**
 * `owner/name`, or GitLab's `group/subgroup/name`: path segments of letters, digits, `.`, `_`, `-`,
 * none only dots (the name goes into forge API paths: `..` would climb out of the repository's).
 */
const SEGMENT = '(?!\\.+(?:/|$))[A-Za-z0-9_.-]+';
const REPOSITORY_PATTERN = new RegExp(`^${SEGMENT}(?:/${SEGMENT})+$`);
/** No control characters (a branch name is shown and sent to forges as is). */
// eslint-disable-next-line no-control-regex
const NO_CONTROLS = /^[^\u0000-\u001f\u007f]*$/;
const HTTP_URL = /^https?:\/\/[^\s/?#]+[^\s]*$/i;

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

  // Provenance (beyond the spec, docs/builds.md "Provenance"): where the build came from, as its CI says.

  @IsOptional()
  @BlankAsAbsent()
  @Matches(COMMIT_PATTERN, { message: 'commit must be a full commit SHA (40 or 64 hexadecimal characters)' })
  commit?: string;

  @IsOptional()
  @BlankAsAbsent()
  @Matches(NO_CONTROLS, { message: 'branch must not contain control characters' })
  @MaxLength(BRANCH_MAX, { message: `branch must be at most ${BRANCH_MAX} characters` })
  branch?: string;

  @IsOptional()
  @BlankAsAbsent()
  @Matches(REPOSITORY_PATTERN, { message: 'repository must be owner/name (GitLab: group/subgroup/name)' })
  @MaxLength(REPOSITORY_MAX, { message: `repository must be at most ${REPOSITORY_MAX} characters` })
  repository?: string;

  @IsOptional()
  @BlankAsAbsent()
  @ToId()
  @Max(MAX_ID, { message: `pull_request must be at most ${MAX_ID}` })
  @Min(1, { message: 'pull_request must be a positive integer' })
  @IsInt({ message: 'pull_request must be a positive integer' })
  pull_request?: number;

  @IsOptional()
  @BlankAsAbsent()
  @Matches(HTTP_URL, { message: 'ci_url must be an http:// or https:// URL' })
  @MaxLength(CI_URL_MAX, { message: `ci_url must be at most ${CI_URL_MAX} characters` })
  ci_url?: string;

  /** Free text ("what to test"); kept as given apart from the trim. */
  @IsOptional()
  @BlankAsAbsent()
  @MaxLength(CHANGELOG_MAX, { message: `changelog must be at most ${CHANGELOG_MAX} characters` })
  changelog?: string;
}

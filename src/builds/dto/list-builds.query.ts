import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { RememberQueryResults } from '../../common/validation/query-results';
import { MAX_ID } from '../../common/validation/parse-id.pipe';
import { ToId, ToInteger, Trim } from '../../common/validation/transforms';
import { BUILD_STATUSES } from '../build-status';
import { BUILD_GATE_STATES, type BuildGateState } from '../build.entity';
import { PLATFORMS, Platform } from '../../app-catalogue/platform';
import { BRANCH_MAX } from './upload-build.dto';
import type { BuildSortField, ListedStatus } from '../build-page';

/** Largest page size (spec §8); a larger `limit` is capped, not refused. */
export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 20;
const SORTS: BuildSortField[] = ['uploaded_at', 'version_name', 'status_label'];
/** Beyond the spec's four: `untriaged`, builds with no status set (docs/builds.md). */
const LIST_STATUSES: ListedStatus[] = [...BUILD_STATUSES, 'untriaged'];
export const MAX_SEARCH_LENGTH = 100;

/** GET /builds query (spec §4). Numbers arrive as strings; anything not a plain non-negative integer is 400. */
@RememberQueryResults()
export class ListBuildsQuery {
  // class-validator runs the decorators bottom-up: the type check comes last so it reports first.
  @ApiPropertyOptional({ type: 'integer', minimum: 0, default: 0, description: 'page index, from 0' })
  @IsOptional()
  @ToInteger()
  @Max(1_000_000_000, { message: 'page is too large' })
  @Min(0, { message: 'page must be a non-negative integer' })
  @IsInt({ message: 'page must be a non-negative integer' })
  page?: number;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: MAX_PAGE_SIZE,
    default: DEFAULT_PAGE_SIZE,
    description: `a larger value is capped at ${MAX_PAGE_SIZE}`,
  })
  @IsOptional()
  @ToInteger()
  @Min(1, { message: `limit must be an integer from 1 to ${MAX_PAGE_SIZE}` })
  @IsInt({ message: `limit must be an integer from 1 to ${MAX_PAGE_SIZE}` })
  limit?: number;

  @ApiPropertyOptional({ maxLength: 200, description: 'searches the version name' })
  @IsOptional()
  @MaxLength(200, { message: 'q must be at most 200 characters' })
  @IsString({ message: 'q must be a string' })
  q?: string;

  @ApiPropertyOptional({
    maxLength: MAX_SEARCH_LENGTH,
    description:
      'beyond the spec: every whitespace-separated term is a case-insensitive (ASCII) substring of the app name, build name, ' +
      'bundle id, version name, build number, label, branch or pull request number; `#17` is pull request 17 exactly, and 7 to 64 ' +
      'hex characters also a prefix of the commit; trimmed, blank = no search (docs/builds.md "Provenance in the search")',
  })
  @IsOptional()
  @MaxLength(MAX_SEARCH_LENGTH, { message: `search must be at most ${MAX_SEARCH_LENGTH} characters` })
  @IsString({ message: 'search must be a string' })
  @Trim()
  search?: string;

  @ApiPropertyOptional({ enum: PLATFORMS })
  @IsOptional()
  @IsIn(PLATFORMS, { message: 'platform must be one of ios, android' })
  platform?: Platform;

  @ApiPropertyOptional({ enum: LIST_STATUSES, description: 'untriaged (beyond the spec): builds with no status' })
  @IsOptional()
  @IsIn(LIST_STATUSES, { message: `status must be one of ${LIST_STATUSES.join(', ')}` })
  status?: ListedStatus;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, description: 'an id past 2147483647 matches no build' })
  @IsOptional()
  @ToId()
  @Min(1, { message: 'app_id must be a positive integer' })
  @IsInt({ message: 'app_id must be a positive integer' })
  app_id?: number;

  @ApiPropertyOptional({ enum: SORTS, default: 'uploaded_at' })
  @IsOptional()
  @IsIn(SORTS, { message: 'sort must be one of uploaded_at, version_name, status_label' })
  sort?: BuildSortField;

  @ApiPropertyOptional({
    enum: ['true'],
    description: 'beyond the spec: only builds with flags, stored at upload against the build before them (docs/builds.md "Flagged builds")',
  })
  @IsOptional()
  @IsIn(['true'], { message: 'flagged must be true (leave it out for every build)' })
  flagged?: 'true';

  @ApiPropertyOptional({ maxLength: BRANCH_MAX, description: 'beyond the spec: only builds uploaded from this branch (exact, case-sensitive; docs/builds.md "Provenance")' })
  @IsOptional()
  @MaxLength(BRANCH_MAX, { message: `branch must be at most ${BRANCH_MAX} characters` })
  @IsString({ message: 'branch must be a string' })
  branch?: string;

  @ApiPropertyOptional({
    minLength: 4,
    maxLength: 64,
    description: 'beyond the spec: only builds of this commit: its full SHA or a prefix of at least 4 hex characters, any case (docs/builds.md "Provenance")',
  })
  @IsOptional()
  @Matches(/^[0-9a-fA-F]{4,64}$/, { message: 'commit must be 4 to 64 hexadecimal characters' })
  @IsString({ message: 'commit must be a string' })
  commit?: string;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: MAX_ID,
    description: 'beyond the spec: only builds uploaded for this pull (merge) request (docs/builds.md "Provenance in the search")',
  })
  @IsOptional()
  @ToInteger()
  @Max(MAX_ID, { message: `pull_request must be at most ${MAX_ID}` })
  @Min(1, { message: 'pull_request must be a positive integer' })
  @IsInt({ message: 'pull_request must be a positive integer' })
  pull_request?: number;

  @ApiPropertyOptional({
    enum: BUILD_GATE_STATES,
    description: 'beyond the spec: only builds whose release gate is in this state (builds without a gate never match; docs/release-gate.md)',
  })
  @IsOptional()
  @IsIn(BUILD_GATE_STATES, { message: `gate must be one of ${BUILD_GATE_STATES.join(', ')} (leave it out for every build)` })
  gate?: BuildGateState;

  @ApiPropertyOptional({ enum: ['asc', 'desc'], default: 'desc' })
  @IsOptional()
  @IsIn(['asc', 'desc'], { message: 'dir must be asc or desc' })
  dir?: 'asc' | 'desc';
}

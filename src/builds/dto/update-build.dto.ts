import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength, ValidateIf } from 'class-validator';
import { BUILD_STATUSES, BuildStatus } from '../build-status';

/** PATCH /builds/:id: a field sent as null clears it; a field left out is left alone. */
export class UpdateBuildDto {
  @ApiPropertyOptional({ enum: BUILD_STATUSES, nullable: true, description: 'null clears it; omitted leaves it alone' })
  @ValidateIf((_, value) => value !== null && value !== undefined)
  @IsIn(BUILD_STATUSES, { message: 'status_label must be one of Backlog, In Progress, Done, Rejected, or null' })
  status_label?: BuildStatus | null;

  @ApiPropertyOptional({ type: String, maxLength: 200, nullable: true, description: 'null clears it' })
  @IsOptional()
  @MaxLength(200, { message: 'version_label must be at most 200 characters' })
  @IsString({ message: 'version_label must be a string or null' })
  version_label?: string | null;
}

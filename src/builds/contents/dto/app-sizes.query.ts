import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { ToInteger } from '../../../common/validation/transforms';

export const MAX_SIZES = 50;
export const DEFAULT_SIZES = 20;
const LIMIT_MESSAGE = `limit must be an integer from 1 to ${MAX_SIZES}`;

/** GET /apps/:id/sizes query. */
export class AppSizesQuery {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_SIZES, default: DEFAULT_SIZES, description: 'how many of the latest builds' })
  @IsOptional()
  @ToInteger()
  @Max(MAX_SIZES, { message: LIMIT_MESSAGE })
  @Min(1, { message: LIMIT_MESSAGE })
  @IsInt({ message: LIMIT_MESSAGE })
  limit?: number;
}

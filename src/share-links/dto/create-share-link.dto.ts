import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { ShareLinkMessages } from '../share-link-messages';

export const DEFAULT_SHARE_DAYS = 7;
export const MAX_SHARE_DAYS = 90;

/** POST /builds/:id/share-links. */
export class CreateShareLinkDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_SHARE_DAYS, default: DEFAULT_SHARE_DAYS, description: 'days until the link expires' })
  @IsOptional()
  @Min(1, { message: ShareLinkMessages.expiryRange })
  @Max(MAX_SHARE_DAYS, { message: ShareLinkMessages.expiryRange })
  @IsInt({ message: ShareLinkMessages.expiryRange })
  expires_in_days?: number;
}

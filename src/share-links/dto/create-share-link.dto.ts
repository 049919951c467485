import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, IsString, Length, Max, Min } from 'class-validator';
import { ShareLinkMessages } from '../share-link-messages';

export const DEFAULT_SHARE_DAYS = 7;
export const MAX_SHARE_DAYS = 90;
export const MAX_DOWNLOAD_LIMIT = 10_000;

/** POST /builds/:id/share-links. */
export class CreateShareLinkDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_SHARE_DAYS, default: DEFAULT_SHARE_DAYS, description: 'days until the link expires' })
  @IsOptional()
  @Min(1, { message: ShareLinkMessages.expiryRange })
  @Max(MAX_SHARE_DAYS, { message: ShareLinkMessages.expiryRange })
  @IsInt({ message: ShareLinkMessages.expiryRange })
  expires_in_days?: number;

  @ApiPropertyOptional({ minLength: 1, maxLength: 200, description: 'asked on the install page before the download; kept only as a bcrypt hash' })
  @IsOptional()
  @Length(1, 200, { message: ShareLinkMessages.passwordLength })
  @IsString({ message: ShareLinkMessages.passwordLength })
  password?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_DOWNLOAD_LIMIT, description: 'downloads allowed (from the first byte); the link answers 410 after the last' })
  @IsOptional()
  @Min(1, { message: ShareLinkMessages.downloadLimitRange })
  @Max(MAX_DOWNLOAD_LIMIT, { message: ShareLinkMessages.downloadLimitRange })
  @IsInt({ message: ShareLinkMessages.downloadLimitRange })
  download_limit?: number;
}

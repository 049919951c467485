import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsISO8601, IsOptional, IsString, Max, MaxLength, Min, ValidateIf } from 'class-validator';
import { ToInteger, Trim } from '../../common/validation/transforms';

export const MAX_AUDIT_PAGE = 200;
export const DEFAULT_AUDIT_PAGE = 50;

/** The filters shared by the list and the export. */
export class AuditFilterQuery {
  @ApiPropertyOptional({ maxLength: 64, description: 'one action (auth.sign_in), or a family with a trailing dot (auth.)' })
  @IsOptional()
  @Trim()
  @MaxLength(64, { message: 'action must be at most 64 characters' })
  @IsString({ message: 'action must be a string' })
  action?: string;

  @ApiPropertyOptional({ maxLength: 320, description: "the actor's member id or label (e-mail, 'relay', 'operator')" })
  @IsOptional()
  @Trim()
  @MaxLength(320, { message: 'actor must be at most 320 characters' })
  @IsString({ message: 'actor must be a string' })
  actor?: string;

  @ApiPropertyOptional({ maxLength: 200, description: 'e.g. member:12, build:40, token:3, session:<id>' })
  @IsOptional()
  @Trim()
  @MaxLength(200, { message: 'target must be at most 200 characters' })
  @IsString({ message: 'target must be a string' })
  target?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'entries at or after this time' })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'since must be an ISO 8601 date-time' })
  since?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'entries before this time' })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'until must be an ISO 8601 date-time' })
  until?: string;
}

/** GET /audit: newest first; `cursor` is the previous page's next_cursor. */
export class ListAuditQuery extends AuditFilterQuery {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_AUDIT_PAGE, default: DEFAULT_AUDIT_PAGE })
  @IsOptional()
  @ToInteger()
  @Max(MAX_AUDIT_PAGE, { message: `limit must be an integer from 1 to ${MAX_AUDIT_PAGE}` })
  @Min(1, { message: `limit must be an integer from 1 to ${MAX_AUDIT_PAGE}` })
  @IsInt({ message: `limit must be an integer from 1 to ${MAX_AUDIT_PAGE}` })
  limit?: number;

  @ApiPropertyOptional({ type: 'string', description: "the previous page's next_cursor" })
  @IsOptional()
  @ValidateIf((_, value) => value !== undefined)
  @IsString({ message: 'cursor is not valid' })
  cursor?: string;
}

export const EXPORT_FORMATS = ['jsonl', 'csv'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export class ExportAuditQuery extends AuditFilterQuery {
  @ApiPropertyOptional({ enum: EXPORT_FORMATS, default: 'jsonl' })
  @IsOptional()
  @IsIn(EXPORT_FORMATS, { message: 'format must be one of jsonl, csv' })
  format?: ExportFormat;
}

export class UpdateAuditSettingsDto {
  @ApiPropertyOptional({ type: 'integer', nullable: true, minimum: 1, maximum: 36500, description: 'null keeps every entry' })
  @ValidateIf((_, value) => value !== null)
  @Max(36500, { message: 'retention_days must be an integer from 1 to 36500, or null' })
  @Min(1, { message: 'retention_days must be an integer from 1 to 36500, or null' })
  @IsInt({ message: 'retention_days must be an integer from 1 to 36500, or null' })
  retention_days: number | null;
}

import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsBoolean, IsInt, IsNumber, IsString, Matches, Max, MaxLength, Min, ValidateIf } from 'class-validator';
import type { CompareSettings } from '../compare-settings';

/** GET and PUT /apps/:id/compare-settings: the whole settings object (PUT replaces it; every field is required). */
export class CompareSettingsDto implements CompareSettings {
  @ApiProperty({ minimum: 0, maximum: 10000, example: 10, description: 'flag a build that grew by at least this % of the earlier file size' })
  @Max(10000, { message: 'size_jump_percent must be a number from 0 to 10000' })
  @Min(0, { message: 'size_jump_percent must be a number from 0 to 10000' })
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'size_jump_percent must be a number from 0 to 10000' })
  size_jump_percent: number;

  @ApiProperty({ type: 'integer', nullable: true, minimum: 1, example: null, description: '…or by at least this many bytes; null = no byte threshold' })
  @ValidateIf((o: CompareSettingsDto) => o.size_jump_bytes !== null)
  @Min(1, { message: 'size_jump_bytes must be a positive integer or null' })
  @IsInt({ message: 'size_jump_bytes must be a positive integer or null' })
  size_jump_bytes: number | null;

  @ApiProperty({ example: true, description: 'flag every added permission; when false only watched ones' })
  @IsBoolean({ message: 'flag_every_new_permission must be true or false' })
  flag_every_new_permission: boolean;

  @ApiProperty({ type: [String], maxItems: 200, example: ['android.permission.CAMERA'], description: 'permissions whose addition is always flagged (and marked watched)' })
  @Matches(/^[A-Za-z0-9_.]+$/, { each: true, message: 'watched_permissions must be permission names (letters, digits, _ and .)' })
  @MaxLength(200, { each: true, message: 'watched_permissions must be permission names of at most 200 characters' })
  @IsString({ each: true, message: 'watched_permissions must be a list of permission names' })
  @ArrayMaxSize(200, { message: 'watched_permissions must have at most 200 entries' })
  @IsArray({ message: 'watched_permissions must be a list of permission names' })
  watched_permissions: string[];
}

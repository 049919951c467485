import { applyDecorators } from '@nestjs/common';
import { IsBoolean, IsNotEmpty, IsString, MaxLength, ValidateIf } from 'class-validator';
import { Trim } from '../../common/validation/transforms';
import { MAX_WEBHOOK_URL_LENGTH } from '../destination/destination-guard';

export const MAX_SECRET_LENGTH = 1024;

/**
 * Field rules shared by POST and PATCH. Absent means "not given" (POST: default; PATCH: leave
 * alone); only `secret` accepts null (no secret). `url: null` or `enabled: null` are 400.
 */
export const WebhookUrlField = (message: string) =>
  applyDecorators(
    Trim(),
    IsString({ message }),
    IsNotEmpty({ message }),
    MaxLength(MAX_WEBHOOK_URL_LENGTH, { message: `url must be at most ${MAX_WEBHOOK_URL_LENGTH} characters` }),
  );

export const WebhookSecretField = () =>
  applyDecorators(
    ValidateIf((_, value) => value !== undefined && value !== null),
    IsString({ message: 'secret must be a non-empty string, or null for no secret' }),
    IsNotEmpty({ message: 'secret must be a non-empty string, or null for no secret' }),
    MaxLength(MAX_SECRET_LENGTH, { message: `secret must be at most ${MAX_SECRET_LENGTH} characters` }),
  );

export const WebhookEnabledField = () =>
  applyDecorators(
    ValidateIf((_, value) => value !== undefined),
    IsBoolean({ message: 'enabled must be true or false' }),
  );

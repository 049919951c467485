import { ApiPropertyOptional } from '@nestjs/swagger';
import { ValidateIf } from 'class-validator';
import { MAX_SECRET_LENGTH, WebhookEnabledField, WebhookSecretField, WebhookUrlField } from './webhook-fields';

/** Only the fields sent are changed; `secret: null` removes the secret. */
export class UpdateWebhookDto {
  @ApiPropertyOptional({ example: 'https://ci.example.com/hooks/svc' })
  @ValidateIf((_, value) => value !== undefined)
  @WebhookUrlField('url must be a non-empty string')
  url?: string;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: MAX_SECRET_LENGTH, description: 'null removes it' })
  @WebhookSecretField()
  secret?: string | null;

  @ApiPropertyOptional({ type: Boolean })
  @WebhookEnabledField()
  enabled?: boolean;
}

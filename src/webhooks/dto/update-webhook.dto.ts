import { ValidateIf } from 'class-validator';
import { WebhookEnabledField, WebhookSecretField, WebhookUrlField } from './webhook-fields';

/** Only the fields sent are changed; `secret: null` removes the secret. */
export class UpdateWebhookDto {
  @ValidateIf((_, value) => value !== undefined)
  @WebhookUrlField('url must be a non-empty string')
  url?: string;

  @WebhookSecretField()
  secret?: string | null;

  @WebhookEnabledField()
  enabled?: boolean;
}

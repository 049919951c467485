import { WebhookEnabledField, WebhookSecretField, WebhookUrlField } from './webhook-fields';

export class CreateWebhookDto {
  /** http(s) URL; loopback, link-local and cloud-metadata destinations are refused. */
  @WebhookUrlField('url is required')
  url: string;

  /** HMAC-SHA256 signing secret; omit or null for unsigned deliveries. */
  @WebhookSecretField()
  secret?: string | null;

  /** Default true. */
  @WebhookEnabledField()
  enabled?: boolean;
}

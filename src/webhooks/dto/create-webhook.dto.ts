import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { MAX_SECRET_LENGTH, WebhookEnabledField, WebhookSecretField, WebhookUrlField } from './webhook-fields';

export class CreateWebhookDto {
  /** http(s) URL; loopback, link-local and cloud-metadata destinations are refused. */
  @ApiProperty({ example: 'https://ci.example.com/hooks/svc' })
  @WebhookUrlField('url is required')
  url: string;

  /** HMAC-SHA256 signing secret; omit or null for unsigned deliveries. */
  @ApiPropertyOptional({ type: String, nullable: true, maxLength: MAX_SECRET_LENGTH })
  @WebhookSecretField()
  secret?: string | null;

  /** Default true. */
  @ApiPropertyOptional({ type: Boolean, default: true })
  @WebhookEnabledField()
  enabled?: boolean;
}

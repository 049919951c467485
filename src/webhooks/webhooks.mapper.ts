import { isoWithMillis, sqlDateTime } from '../common/time';
import type { WebhookDeliveryEntity } from './webhook-delivery.entity';
import type { WebhookEntity } from './webhook.entity';

/** spec §2 "Webhook": `has_secret`, never the secret. */
export interface WebhookResponse {
  id: number;
  url: string;
  enabled: boolean;
  has_secret: boolean;
  created_at: string;
}

/** One attempt in GET /webhooks/:id/deliveries (beyond the spec; see docs/webhooks.md). */
export interface WebhookDeliveryItem {
  delivery_id: string;
  event: string;
  attempt: number;
  attempted_at: string;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
}

export function toWebhookResponse(webhook: WebhookEntity): WebhookResponse {
  return {
    id: webhook.id,
    url: webhook.url,
    enabled: webhook.enabled,
    has_secret: webhook.secret !== null,
    created_at: sqlDateTime(webhook.createdAt),
  };
}

export function toDeliveryItem(attempt: WebhookDeliveryEntity): WebhookDeliveryItem {
  return {
    delivery_id: attempt.deliveryId,
    event: attempt.event,
    attempt: attempt.attempt,
    attempted_at: isoWithMillis(attempt.attemptedAt),
    status_code: attempt.statusCode,
    error: attempt.error,
    duration_ms: attempt.durationMs,
  };
}

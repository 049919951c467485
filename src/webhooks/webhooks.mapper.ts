import { ApiProperty } from '@nestjs/swagger';
import { isoWithMillis, sqlDateTime } from '../common/time';
import type { ConfigFileEntry } from './delivery/config-file-webhooks';
import type { AttemptRecord } from './delivery/delivery-log.repository';
import type { WebhookEntity } from './webhook.entity';

/** spec §2 "Webhook": `has_secret`, never the secret. */
export class Webhook {
  @ApiProperty()
  id: number;
  @ApiProperty({ example: 'https://ci.example.com/hooks/svc' })
  url: string;
  @ApiProperty()
  enabled: boolean;
  @ApiProperty({ description: 'a signing secret is set; the secret itself is never returned' })
  has_secret: boolean;
  @ApiProperty({ description: 'format YYYY-MM-DD HH:MM:SS', example: '2025-01-01 12:00:00' })
  created_at: string;
}

/** GET /webhooks. */
export class WebhookList {
  @ApiProperty({ type: [Webhook] })
  webhooks: Webhook[];
}

/** One attempt in GET /webhooks/:id/deliveries (beyond the spec; see docs/webhooks.md). */
export class WebhookDeliveryItem {
  @ApiProperty({ description: 'the X-Svc-Delivery header, the same on retries' })
  delivery_id: string;
  @ApiProperty({ example: 'build.status_changed' })
  event: string;
  @ApiProperty({ description: '1 for the first try' })
  attempt: number;
  @ApiProperty({ format: 'date-time' })
  attempted_at: string;
  @ApiProperty({ type: Number, nullable: true, description: 'HTTP status of the answer; null when none came' })
  status_code: number | null;
  @ApiProperty({ type: String, nullable: true })
  error: string | null;
  @ApiProperty()
  duration_ms: number;
}

/** GET /webhooks/:id/deliveries. */
export class WebhookDeliveryList {
  @ApiProperty({ type: [WebhookDeliveryItem], description: 'the newest 50 attempts, newest first' })
  deliveries: WebhookDeliveryItem[];
}

export function toWebhookResponse(webhook: WebhookEntity): Webhook {
  return {
    id: webhook.id,
    url: webhook.url,
    enabled: webhook.enabled,
    has_secret: webhook.secret !== null,
    created_at: sqlDateTime(webhook.createdAt),
  };
}

export function toDeliveryItem(attempt: AttemptRecord): WebhookDeliveryItem {
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

/**
 * A svc.config.json `webhooks` entry (beyond the spec; docs/webhooks.md): read-only, its id a string
 * (`config-<index>`) so it can never be taken for an API webhook's numeric id.
 */
export class ConfigWebhook {
  @ApiProperty({ example: 'config-0' })
  id: string;
  @ApiProperty({ enum: ['svc.config.json'] })
  source: 'svc.config.json';
  @ApiProperty({ description: 'position in the file\'s `webhooks` array' })
  index: number;
  @ApiProperty({ description: 'scheme, host and port only: paths and queries of webhook URLs often carry tokens', example: 'https://chat.example.com/…' })
  url: string;
  @ApiProperty()
  enabled: boolean;
  @ApiProperty({ description: 'its secretEnv variable is set; deliveries are signed' })
  has_secret: boolean;
  @ApiProperty({ description: 'receives deliveries (enabled and passed the start-up checks)' })
  in_use: boolean;
  @ApiProperty({ type: String, nullable: true, description: 'why it is not in use; null when it is' })
  problem: string | null;
}

/** GET /webhooks/config. */
export class ConfigWebhookList {
  @ApiProperty({ type: [ConfigWebhook] })
  webhooks: ConfigWebhook[];
}

export function toConfigWebhook(entry: ConfigFileEntry): ConfigWebhook {
  return {
    id: `config-${entry.index}`,
    source: 'svc.config.json',
    index: entry.index,
    url: originOnly(entry.url),
    enabled: entry.enabled,
    has_secret: entry.secret !== null,
    in_use: entry.problem === null,
    problem: entry.problem,
  };
}

/** `https://host:port/…`: the operator's path and query stay in the file (they often hold tokens). */
function originOnly(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}/…`;
  } catch {
    return '(not a URL)';
  }
}

import { Injectable } from '@nestjs/common';
import { MINUTE_MS } from '../../common/time';

/**
 * How webhook deliveries are paced (see docs/webhooks.md). Production uses these values as they
 * are; the end-to-end tests shorten the retry delays on the running app
 * (`app.get(WebhookDeliverySettings).retryDelaysMs = [50]`) so no test sleeps for minutes.
 * The 5 s request timeout is the spec's (§6, §8) and tests keep it.
 */
@Injectable()
export class WebhookDeliverySettings {
  /** One attempt, DNS lookup to response headers (spec §6). */
  timeoutMs = 5_000;
  /** Waits before the 2nd, 3rd and 4th attempt; its length bounds the retries. */
  retryDelaysMs: number[] = [10_000, MINUTE_MS, 5 * MINUTE_MS];
  /** Each wait is spread by up to ±this fraction, so retries of many endpoints do not align. */
  jitter = 0.2;
  /** Bytes of a response body read before the connection is closed (the body is not used). */
  maxResponseBytes = 4096;

  get maxAttempts(): number {
    return 1 + this.retryDelaysMs.length;
  }

  /** The wait after failed attempt `attempt` (1-based), jitter applied. */
  delayAfter(attempt: number): number {
    const base = this.retryDelaysMs[attempt - 1] ?? 0;
    const spread = base * this.jitter * (Math.random() * 2 - 1);
    return Math.max(0, Math.round(base + spread));
  }
}

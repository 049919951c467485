import { isoWithMillis } from '../../common/time';

/** The event name of a test delivery (X-Svc-Event and the body's `event`). */
export const PING_EVENT = 'ping';

/**
 * The body of a test delivery: not a spec §6 event, so receivers that only handle
 * `build.status_changed` can ignore it by its `event` while still checking the signature.
 */
export function pingBody(webhookId: number | string, sentAt: Date): Buffer {
  return Buffer.from(JSON.stringify({ event: PING_EVENT, webhook: { id: String(webhookId) }, sentAt: isoWithMillis(sentAt) }), 'utf8');
}

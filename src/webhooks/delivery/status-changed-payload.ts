import { createHmac } from 'node:crypto';
import { changedToFinal } from '../../builds/build-status';
import { BuildStatusChangedEvent } from '../../builds/events/build-status-changed.event';
import { isoWithMillis } from '../../common/time';

/**
 * Spec §3 firing rules: only a change to Done or Rejected notifies; the same value again
 * (Done → Done), Backlog, In Progress, clearing the status, or an edit of other fields does not.
 */
export function shouldNotify(event: BuildStatusChangedEvent): boolean {
  return changedToFinal(event.previousStatus, event.status);
}

/**
 * The body of spec §6, serialised once: these exact bytes are signed and sent on every attempt
 * of every endpoint, so a signature always covers what the receiver reads.
 */
export function statusChangedBody(event: BuildStatusChangedEvent): Buffer {
  const body = {
    event: BuildStatusChangedEvent.eventName,
    build: {
      id: String(event.build.id),
      platform: event.build.platform,
      appVersion: event.build.versionName || null,
      status: event.status,
    },
    changedAt: isoWithMillis(event.changedAt),
  };
  return Buffer.from(JSON.stringify(body), 'utf8');
}

/** `X-Svc-Signature` value: `sha256=` + lowercase hex HMAC-SHA256 of the raw body bytes. */
export function signatureFor(secret: string, body: Buffer): string {
  return 'sha256=' + createHmac('sha256', secret).update(body).digest('hex');
}

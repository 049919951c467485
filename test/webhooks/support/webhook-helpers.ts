import { EventEmitter2 } from '@nestjs/event-emitter';
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { BuildStatus } from '../../../src/builds/build-status';
import { BuildStatusChangedEvent } from '../../../src/builds/events/build-status-changed.event';
import { WebhookDeliverySettings } from '../../../src/webhooks/delivery/delivery-settings';
import { HostnameResolver, ResolvedAddress } from '../../../src/webhooks/destination/hostname-resolver';
import type { TestRelay } from '../../support/test-relay';

let nextBuildId = 1000;

/** Emits build.status_changed through the running app's real EventEmitter2, as the builds module does. */
export function emitStatusChange(
  relay: TestRelay,
  previous: BuildStatus | null,
  next: BuildStatus | null,
  build: Partial<BuildStatusChangedEvent['build']> = {},
): BuildStatusChangedEvent {
  const event = new BuildStatusChangedEvent(
    {
      id: ++nextBuildId,
      platform: 'android',
      versionName: '2.3.1',
      buildNumber: '57',
      bundleId: 'com.example.app',
      appId: 1,
      ...build,
    },
    previous,
    next,
    relay.clock.now(),
  );
  relay.app.get(EventEmitter2).emit(BuildStatusChangedEvent.eventName, event);
  return event;
}

/** What a receiver does: HMAC-SHA256 over the raw bytes, constant-time compare. */
export function signatureVerifies(secret: string, rawBody: Buffer, header: string | undefined): boolean {
  if (!header?.startsWith('sha256=')) return false;
  const expected = Buffer.from(createHmac('sha256', secret).update(rawBody).digest('hex'));
  const given = Buffer.from(header.slice('sha256='.length));
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** Short retry waits for tests (the production schedule is 10 s, 1 min, 5 min). */
export function fastRetries(relay: TestRelay, delaysMs: number[] = [100, 100]): void {
  const settings = relay.app.get(WebhookDeliverySettings);
  settings.retryDelaysMs = delaysMs;
  settings.jitter = 0;
}

/** Answers name lookups from a table (test DNS); names not in it fail like NXDOMAIN. */
export function fakeDns(relay: TestRelay, table: Record<string, string[]>): void {
  relay.app.get(HostnameResolver).override(async (name) => {
    const found = table[name];
    if (!found) throw Object.assign(new Error(`queryA ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
    return found.map((address): ResolvedAddress => ({ address, family: address.includes(':') ? 6 : 4 }));
  });
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const SQL_DATETIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

/** Polls `check` every 25 ms until it returns a value (not undefined) or `timeoutMs` passes. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 4000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

import { createHmac, timingSafeEqual } from 'node:crypto';

/** Slack's rule: a request older (or newer) than five minutes is refused, so a captured one cannot be replayed later. */
export const SLACK_SIGNATURE_MAX_AGE_S = 5 * 60;

/**
 * Slack's signing-secret scheme (https://api.slack.com/authentication/verifying-requests-from-slack):
 * `X-Slack-Signature` is `v0=` + hex HMAC-SHA256 of `v0:<X-Slack-Request-Timestamp>:<raw body>`
 * under the app's signing secret; compared in constant time.
 */
export function verifySlackSignature(secret: string, headers: Record<string, string | string[] | undefined>, raw: Buffer, nowMs: number): boolean {
  const timestamp = single(headers['x-slack-request-timestamp']);
  const signature = single(headers['x-slack-signature']);
  if (!timestamp || !signature || !/^\d{1,12}$/.test(timestamp)) return false;
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > SLACK_SIGNATURE_MAX_AGE_S) return false;
  const expected = Buffer.from(`v0=${createHmac('sha256', secret).update(`v0:${timestamp}:`).update(raw).digest('hex')}`);
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? undefined : value;
}

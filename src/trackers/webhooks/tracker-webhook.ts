import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ConfigFileTracker } from '../../config/tracker-config';
import type { IssueStatusReport } from '../trackers.service';

/** Linear signs `webhookTimestamp` (ms) into the body: older than this is refused as a replay. */
export const LINEAR_MAX_AGE_MS = 60_000;

type Headers = Record<string, string | string[] | undefined>;

const header = (headers: Headers, name: string): string => {
  const value = headers[name];
  return (Array.isArray(value) ? value[0] : value) ?? '';
};

/** Constant-time comparison of a received hex HMAC-SHA256 with the one of `raw` under `secret`. */
function signedWith(secret: string, raw: Buffer, received: string): boolean {
  const expected = createHmac('sha256', secret).update(raw).digest();
  const given = /^[0-9a-f]{64}$/i.test(received) ? Buffer.from(received, 'hex') : Buffer.alloc(0);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * Whether a webhook is the tracker's: Jira (Cloud and Data Center, a webhook with a secret) and
 * GitHub sign the body with HMAC-SHA256 as `sha256=<hex>` in X-Hub-Signature (Jira) or
 * X-Hub-Signature-256 (GitHub); Linear as bare hex in Linear-Signature, with the body's
 * webhookTimestamp within a minute.
 */
export function verifyWebhook(tracker: ConfigFileTracker, headers: Headers, raw: Buffer, body: unknown, nowMs: number): boolean {
  const secret = tracker.webhookSecret;
  if (!secret) return false;
  switch (tracker.type) {
    case 'jira':
    case 'jira-dc': {
      const [method, hex] = header(headers, 'x-hub-signature').split('=', 2);
      return method === 'sha256' && signedWith(secret, raw, hex ?? '');
    }
    case 'github': {
      const [method, hex] = header(headers, 'x-hub-signature-256').split('=', 2);
      return method === 'sha256' && signedWith(secret, raw, hex ?? '');
    }
    case 'linear': {
      if (!signedWith(secret, raw, header(headers, 'linear-signature'))) return false;
      const at = (body as { webhookTimestamp?: unknown } | null)?.webhookTimestamp;
      return typeof at === 'number' && Math.abs(nowMs - at) <= LINEAR_MAX_AGE_MS;
    }
  }
}

/** The issue status a verified webhook reports, or null for an event about something else. */
export function readStatusReport(tracker: ConfigFileTracker, headers: Headers, body: unknown): IssueStatusReport | null {
  const b = body as Record<string, any> | null;
  if (!b || typeof b !== 'object') return null;
  switch (tracker.type) {
    case 'jira':
    case 'jira-dc': {
      const status = b.issue?.fields?.status;
      if (typeof b.issue?.key !== 'string' || typeof status?.name !== 'string') return null;
      return { externalId: b.issue.key, status: status.name, closed: status.statusCategory?.key === 'done' };
    }
    case 'github': {
      if (header(headers, 'x-github-event') !== 'issues') return null;
      const number = b.issue?.number;
      const repository = b.repository?.full_name;
      if (typeof number !== 'number' || typeof repository !== 'string' || typeof b.issue?.state !== 'string') return null;
      const reason = typeof b.issue.state_reason === 'string' ? ` (${b.issue.state_reason})` : '';
      return { externalId: `${repository.toLowerCase()}#${number}`, status: `${b.issue.state}${b.issue.state === 'closed' ? reason : ''}`, closed: b.issue.state === 'closed' };
    }
    case 'linear': {
      const state = b.data?.state;
      if (b.type !== 'Issue' || typeof b.data?.id !== 'string' || typeof state?.name !== 'string') return null;
      return { externalId: b.data.id, status: state.name, closed: state.type === 'completed' || state.type === 'canceled' };
    }
  }
}

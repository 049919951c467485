import { createHmac } from 'node:crypto';
import type { ConfigFileTracker } from '../../config/tracker-config';
import { clipRange } from '../evidence/issue-evidence';
import { readStatusReport, verifyWebhook } from './tracker-webhook';

const NOW = Date.parse('2026-12-02T05:00:00Z');
const tracker = (type: ConfigFileTracker['type']): ConfigFileTracker => ({
  name: type,
  type,
  url: 'https://tracker.example',
  tokenEnv: 'T',
  token: 't',
  emailEnv: null,
  email: null,
  webhookSecretEnv: 'S',
  webhookSecret: 'secret',
  projects: { '*': 'P' },
  issueType: 'Bug',
});
const hmac = (raw: string, secret = 'secret') => createHmac('sha256', secret).update(raw).digest('hex');

describe('tracker webhooks', () => {
  it('verifies GitHub\'s X-Hub-Signature-256 and reads a closed issue', () => {
    const body = { action: 'closed', issue: { number: 7, state: 'closed', state_reason: 'completed' }, repository: { full_name: 'Acme/App' } };
    const raw = JSON.stringify(body);
    const headers = { 'x-hub-signature-256': `sha256=${hmac(raw)}`, 'x-github-event': 'issues' };
    expect(verifyWebhook(tracker('github'), headers, Buffer.from(raw), body, NOW)).toBe(true);
    expect(verifyWebhook(tracker('github'), { ...headers, 'x-hub-signature-256': `sha256=${hmac(raw, 'other')}` }, Buffer.from(raw), body, NOW)).toBe(false);
    expect(readStatusReport(tracker('github'), headers, body)).toEqual({ externalId: 'acme/app#7', status: 'closed (completed)', closed: true });
    expect(readStatusReport(tracker('github'), { 'x-github-event': 'push' }, body)).toBeNull();
  });

  it('verifies Linear-Signature and refuses a webhookTimestamp older than a minute', () => {
    const body = { type: 'Issue', action: 'update', webhookTimestamp: NOW - 1000, data: { id: 'abc', state: { name: 'Done', type: 'completed' } } };
    const raw = JSON.stringify(body);
    expect(verifyWebhook(tracker('linear'), { 'linear-signature': hmac(raw) }, Buffer.from(raw), body, NOW)).toBe(true);
    expect(verifyWebhook(tracker('linear'), { 'linear-signature': hmac(raw) }, Buffer.from(raw), body, NOW + 120_000)).toBe(false);
    expect(verifyWebhook(tracker('linear'), {}, Buffer.from(raw), body, NOW)).toBe(false);
    expect(readStatusReport(tracker('linear'), {}, body)).toEqual({ externalId: 'abc', status: 'Done', closed: true });
  });

  it('refuses every webhook of a tracker without a secret', () => {
    const raw = '{}';
    expect(verifyWebhook({ ...tracker('jira'), webhookSecret: null }, { 'x-hub-signature': `sha256=${hmac(raw)}` }, Buffer.from(raw), {}, NOW)).toBe(false);
  });
});

describe('clip range', () => {
  it('is the last 30 seconds by default, the chosen range clamped to the recording and to 5 minutes otherwise', () => {
    expect(clipRange({ fromMs: null, toMs: null }, 40_000)).toEqual({ from: 10_000, to: 40_000 });
    expect(clipRange({ fromMs: null, toMs: null }, 12_000)).toEqual({ from: 0, to: 12_000 });
    expect(clipRange({ fromMs: 5000, toMs: 90_000 }, 40_000)).toEqual({ from: 5000, to: 40_000 });
    expect(clipRange({ fromMs: 0, toMs: 600_000 }, 900_000)).toEqual({ from: 300_000, to: 600_000 });
  });
});

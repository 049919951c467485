import { DestinationRefused } from '../webhooks/destination/destination-guard';
import { ForgeRefusal } from '../forges/clients/forge-client';
import { BASE_BACKOFF_MS, judgeFailure, MAX_BACKOFF_MS } from './retry-policy';

const NOW = Date.parse('2026-11-27T04:00:00Z');
const refusal = (status: number, headers: Record<string, string> = {}, message = `HTTP ${status}`) => new ForgeRefusal(status, new Headers(headers), message);

describe('judgeFailure (the forge outbox retry policy)', () => {
  it('retries 5xx with exponential backoff, capped', () => {
    expect(judgeFailure(refusal(502), 1, NOW).retryAfterMs).toBe(BASE_BACKOFF_MS);
    expect(judgeFailure(refusal(503), 3, NOW).retryAfterMs).toBe(4 * BASE_BACKOFF_MS);
    expect(judgeFailure(refusal(500), 40, NOW).retryAfterMs).toBe(MAX_BACKOFF_MS);
    expect(judgeFailure(refusal(503, { 'retry-after': '7' }), 1, NOW).retryAfterMs).toBe(7000);
  });

  it('honours Retry-After (seconds or an HTTP date) on 429', () => {
    expect(judgeFailure(refusal(429, { 'retry-after': '30' }), 1, NOW).retryAfterMs).toBe(30_000);
    expect(judgeFailure(refusal(429, { 'retry-after': new Date(NOW + 90_000).toUTCString() }), 1, NOW).retryAfterMs).toBe(90_000);
    expect(judgeFailure(refusal(429), 2, NOW).retryAfterMs).toBe(2 * BASE_BACKOFF_MS);
  });

  it('treats GitHub rate limits on 403 as retryable: x-ratelimit-reset, Retry-After, or a minute for a secondary limit', () => {
    const reset = String(Math.floor(NOW / 1000) + 120);
    expect(judgeFailure(refusal(403, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset }), 1, NOW).retryAfterMs).toBe(120_000);
    expect(judgeFailure(refusal(403, { 'retry-after': '60' }), 1, NOW).retryAfterMs).toBe(60_000);
    expect(judgeFailure(refusal(403, {}, 'HTTP 403: You have exceeded a secondary rate limit'), 1, NOW).retryAfterMs).toBe(60_000);
  });

  it('gives up on other refusals and refused destinations; retries network errors and transient DNS failures', () => {
    for (const status of [400, 401, 403, 404, 422]) expect(judgeFailure(refusal(status), 1, NOW).retryAfterMs).toBeNull();
    expect(judgeFailure(new DestinationRefused('169.254.169.254 is a link-local address'), 1, NOW)).toEqual({
      statusCode: null,
      error: 'destination refused: 169.254.169.254 is a link-local address',
      retryAfterMs: null,
    });
    expect(judgeFailure(new DestinationRefused('forge.lan could not be resolved', true), 1, NOW).retryAfterMs).toBe(BASE_BACKOFF_MS);
    // Wrapped by a client (Octokit's RequestError keeps what fetch threw as its cause): still final.
    expect(judgeFailure(Object.assign(new Error('wrapped'), { cause: new DestinationRefused('127.0.0.1 is a loopback address') }), 1, NOW).retryAfterMs).toBeNull();
    const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    expect(judgeFailure(reset, 2, NOW)).toEqual({ statusCode: null, error: 'network error: ECONNRESET', retryAfterMs: 2 * BASE_BACKOFF_MS });
  });
});

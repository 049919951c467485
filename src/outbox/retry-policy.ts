import { redactSecrets } from '../logging/mask-secrets';
import { DestinationRefused } from '../webhooks/destination/destination-guard';

/** First retry after this; doubled each time up to MAX_BACKOFF_MS. */
export const BASE_BACKOFF_MS = 10_000;
export const MAX_BACKOFF_MS = 30 * 60_000;
/** GitHub asks for at least a minute after a secondary rate limit that names no time. */
const SECONDARY_RATE_LIMIT_MS = 60_000;
/** A message still undelivered this long after it was queued is given up (logged as failed). */
export const GIVE_UP_AFTER_MS = 3 * 24 * 3_600_000;

/**
 * The destination answered, but not with a success: its status and headers decide whether to try
 * again. Every outbox sender (forges, mail, Slack, Teams, trackers) throws one of these for a refusal
 * (`ForgeRefusal` is the forges' own); anything else thrown counts as a network error.
 */
export class OutboundRefusal extends Error {
  constructor(
    readonly statusCode: number,
    readonly headers: Headers,
    message: string,
    /** Set by a sender whose protocol is not HTTP (SMTP's 4xx is transient, 5xx final); unset: judged from the HTTP status. */
    readonly retryable?: boolean,
  ) {
    super(message);
  }
}

/** What one failed attempt means: try again after `delayMs`, or never. */
export interface AttemptVerdict {
  statusCode: number | null;
  error: string;
  retryAfterMs: number | null;
}

/**
 * 5xx, 429, GitHub's rate limits (403 with Retry-After or no remaining requests, or a "secondary
 * rate limit" message) and network errors are tried again: after Retry-After when the forge gives
 * one, at x-ratelimit-reset, else with exponential backoff. Any other answer (401, 404, 422…) and a
 * refused destination are final.
 */
export function judgeFailure(err: unknown, attempts: number, nowMs: number): AttemptVerdict {
  const backoff = Math.min(BASE_BACKOFF_MS * 2 ** Math.max(0, attempts - 1), MAX_BACKOFF_MS);
  if (err instanceof OutboundRefusal) {
    const status = err.statusCode;
    if (err.retryable !== undefined) return { statusCode: status, error: err.message, retryAfterMs: err.retryable ? backoff : null };
    const asked = retryAfterMs(err.headers, nowMs);
    const rateLimited =
      status === 429 ||
      (status === 403 && (asked !== null || err.headers.get('x-ratelimit-remaining') === '0' || /secondary rate limit/i.test(err.message)));
    if (rateLimited) return { statusCode: status, error: err.message, retryAfterMs: asked ?? Math.max(backoff, status === 403 ? SECONDARY_RATE_LIMIT_MS : 0) };
    if (status >= 500) return { statusCode: status, error: err.message, retryAfterMs: asked ?? backoff };
    return { statusCode: status, error: err.message, retryAfterMs: null };
  }
  const cause = (err as { cause?: NodeJS.ErrnoException })?.cause;
  // Octokit wraps what its fetch throws (a RequestError whose cause is the refusal).
  const refused = err instanceof DestinationRefused ? err : cause instanceof DestinationRefused ? cause : null;
  if (refused) return { statusCode: null, error: `destination refused: ${refused.reason}`, retryAfterMs: refused.transient ? backoff : null };
  const code = (err as NodeJS.ErrnoException)?.code ?? cause?.code;
  // A refusal's text is redacted where it is made (its client knows the credentials); a network error's is redacted of shapes here.
  return { statusCode: null, error: redactSecrets(`network error: ${code ?? (err as Error)?.message ?? String(err)}`), retryAfterMs: backoff };
}

/** Retry-After (seconds or an HTTP date), else GitHub's x-ratelimit-reset (epoch seconds) when nothing remains. */
function retryAfterMs(headers: Headers, nowMs: number): number | null {
  const after = headers.get('retry-after');
  if (after !== null) {
    if (/^\d+$/.test(after.trim())) return Number(after.trim()) * 1000;
    const at = Date.parse(after);
    if (!Number.isNaN(at)) return Math.max(0, at - nowMs);
  }
  const reset = headers.get('x-ratelimit-reset');
  if (reset && headers.get('x-ratelimit-remaining') === '0' && /^\d+$/.test(reset)) return Math.max(0, Number(reset) * 1000 - nowMs);
  return null;
}

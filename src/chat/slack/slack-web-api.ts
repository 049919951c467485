import type { WebClient } from '@slack/web-api';
import { redactSecrets } from '../../logging/mask-secrets';
import { OutboundRefusal } from '../../outbox/retry-policy';

/** Loaded when Slack is first called, not at start-up: most relays have no Slack app (docs/decisions.md#s1). */
const slack = () => require('@slack/web-api') as typeof import('@slack/web-api');

/** Slack's `error` values that mean "try again later" (https://api.slack.com/web#errors); every other one is final. */
const TRANSIENT_ERRORS = new Set(['ratelimited', 'internal_error', 'fatal_error', 'service_unavailable', 'request_timeout']);

/**
 * The three Web API methods the relay calls, through @slack/web-api's WebClient given the
 * SSRF-pinned fetch (its `fetch` option), with its own retries off (the outbox retries, with the
 * same policy as every sender) and rate limits handed back instead of waited out. A refusal is an
 * OutboundRefusal: HTTP 429/5xx and Slack's transient errors are tried again, others are final.
 */
export class SlackWebApi {
  private readonly client: WebClient;

  constructor(
    fetch: typeof globalThis.fetch,
    apiUrl: string,
    private readonly token: string,
  ) {
    const { LogLevel, WebClient: Client } = slack();
    this.client = new Client(token, {
      slackApiUrl: `${apiUrl}/`,
      fetch,
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls: true,
      logLevel: LogLevel.ERROR,
      allowAbsoluteUrls: false,
    });
  }

  async postMessage(channel: string, text: string, blocks: unknown[]): Promise<{ ts: string }> {
    const answer = await this.call('chat.postMessage', { channel, text, blocks, unfurl_links: false });
    return { ts: String(answer.ts) };
  }

  async update(channel: string, ts: string, text: string, blocks: unknown[]): Promise<void> {
    await this.call('chat.update', { channel, ts, text, blocks });
  }

  /** The Slack user's e-mail (needs the `users:read.email` scope); null when Slack gives none. */
  async userEmail(user: string): Promise<{ email: string | null; deleted: boolean }> {
    const answer = await this.call('users.info', { user });
    const found = answer.user as { deleted?: boolean; profile?: { email?: string } } | undefined;
    return { email: found?.profile?.email ?? null, deleted: found?.deleted === true };
  }

  redact(text: string): string {
    return redactSecrets(text, [this.token]);
  }

  private async call(method: string, options: Record<string, unknown>): Promise<Record<string, unknown>> {
    try {
      return (await this.client.apiCall(method, options)) as unknown as Record<string, unknown>;
    } catch (err) {
      const { WebAPIHTTPError, WebAPIPlatformError, WebAPIRateLimitedError, WebAPIRequestError } = slack();
      if (err instanceof WebAPIPlatformError) throw new SlackApiError(method, String(err.data.error ?? 'unknown_error'));
      if (err instanceof WebAPIRateLimitedError) throw new OutboundRefusal(429, new Headers({ 'retry-after': String(err.retryAfter) }), `Slack ${method}: rate limited for ${err.retryAfter} s`);
      if (err instanceof WebAPIHTTPError) {
        const body = typeof err.body === 'string' ? err.body : JSON.stringify(err.body ?? '');
        throw new OutboundRefusal(err.statusCode, new Headers(err.headers), this.redact(`Slack ${method}: HTTP ${err.statusCode} ${body.slice(0, 200)}`));
      }
      // The pinned fetch's own error (a refused destination, a network code) decides the retry.
      if (err instanceof WebAPIRequestError) throw err.original;
      throw err;
    }
  }
}

/** Slack answered `ok: false` (`channel_not_found`, `message_not_found`, `ratelimited`…). */
export class SlackApiError extends OutboundRefusal {
  constructor(
    readonly method: string,
    readonly error: string,
  ) {
    super(200, new Headers(), `Slack ${method}: ${error}`, TRANSIENT_ERRORS.has(error));
  }
}

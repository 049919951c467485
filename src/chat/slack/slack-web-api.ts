import { redactSecrets } from '../../logging/mask-secrets';
import { OutboundRefusal } from '../../outbox/retry-policy';

/** Slack's `error` values that mean "try again later" (https://api.slack.com/web#errors); every other one is final. */
const TRANSIENT_ERRORS = new Set(['ratelimited', 'internal_error', 'fatal_error', 'service_unavailable', 'request_timeout']);

/**
 * The three Web API methods the relay calls, with the bot token, through the SSRF-pinned fetch.
 * Shaped as @slack/web-api's WebClient calls them (POST `<slackApiUrl>/<method>`, JSON body,
 * `Authorization: Bearer`), which replaces this file's `call` once the package is installed
 * (WebClient's `fetch` option takes the pinned fetch; its retries off, the outbox retries).
 * A refusal is an OutboundRefusal: HTTP 429/5xx and Slack's transient errors are tried again.
 */
export class SlackWebApi {
  constructor(
    private readonly fetch: typeof globalThis.fetch,
    private readonly apiUrl: string,
    private readonly token: string,
  ) {}

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

  private async call(method: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
    const res = await this.fetch(`${this.apiUrl}/${method}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8', authorization: `Bearer ${this.token}` },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new OutboundRefusal(res.status, res.headers, this.redact(`Slack ${method}: HTTP ${res.status} ${text.slice(0, 200)}`));
    let answer: Record<string, unknown>;
    try {
      answer = JSON.parse(text) as Record<string, unknown>;
    } catch {
      throw new OutboundRefusal(502, res.headers, `Slack ${method}: an answer that is not JSON`, true);
    }
    if (answer.ok !== true) {
      const error = typeof answer.error === 'string' ? answer.error : 'unknown_error';
      throw new SlackApiError(method, error, res.headers);
    }
    return answer;
  }
}

/** Slack answered `ok: false` (`channel_not_found`, `message_not_found`, `ratelimited`…). */
export class SlackApiError extends OutboundRefusal {
  constructor(
    readonly method: string,
    readonly error: string,
    headers: Headers,
  ) {
    super(200, headers, `Slack ${method}: ${error}`, TRANSIENT_ERRORS.has(error));
  }
}

import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { SLACK_API_URL, type SlackConfig, type TeamsRoute } from '../config/chat-config';
import { RelayConfig } from '../config/relay-config';
import { redactSecrets } from '../logging/mask-secrets';
import { pinnedFetch } from '../outbox/pinned-fetch';
import { DestinationGuard } from '../webhooks/destination/destination-guard';
import { SlackWebApi } from './slack/slack-web-api';

/** Per request to Slack or Teams: DNS, connect, TLS and the whole answer. */
export const CHAT_REQUEST_TIMEOUT_MS = 10_000;
/** Where Slack's `response_url`s point (https://api.slack.com/interactivity/handling#message_responses). */
const SLACK_RESPONSE_ORIGIN = 'https://hooks.slack.com';

/**
 * The chat destinations of svc.config.json `chat` (docs/integrations.md "Slack and Microsoft
 * Teams"), with their credentials from the environment: Slack's Web API client (null without a bot
 * token) and the Teams webhooks. Every request goes through the pinned fetch under the operator's
 * SSRF rule (the file's destinations, like config-file webhooks and forges).
 */
@Injectable()
export class ChatDestinations implements OnModuleInit {
  private readonly logger = new Logger('Chat');
  /** For svc.config.json's destinations (the operator's SSRF rule: this host and the LAN allowed). */
  readonly fetch: typeof globalThis.fetch;
  /** For destinations added in the dashboard (the rule of webhooks registered through the API: never this host). */
  readonly apiFetch: typeof globalThis.fetch;
  readonly slackApi: SlackWebApi | null;

  constructor(
    private readonly config: RelayConfig,
    guard: DestinationGuard,
  ) {
    this.fetch = pinnedFetch(guard, CHAT_REQUEST_TIMEOUT_MS, 'operator');
    this.apiFetch = pinnedFetch(guard, CHAT_REQUEST_TIMEOUT_MS, 'api');
    const slack = config.chat.slack;
    this.slackApi = slack?.botToken ? new SlackWebApi(this.fetch, slack.apiUrl, slack.botToken) : null;
  }

  onModuleInit(): void {
    const slack = this.slack;
    if (slack && !slack.botToken) this.logger.warn(`chat.slack: ${slack.botTokenEnv} is unset: no Slack notices are sent`);
    if (slack && !slack.signingSecret) this.logger.warn(`chat.slack: ${slack.signingSecretEnv} is unset: Slack's buttons are refused`);
    for (const route of this.config.chat.teams.filter((t) => !t.url)) this.logger.warn(`chat.teams "${route.name}": ${route.urlEnv} is unset: it gets no notices`);
  }

  get slack(): SlackConfig | null {
    return this.config.chat.slack;
  }

  get teams(): TeamsRoute[] {
    return this.config.chat.teams;
  }

  /**
   * Whether a button press's `response_url` may be posted to: Slack's own hooks host only; with a
   * Web API base other than Slack's (a test's fake on loopback) that base's origin instead. No
   * other URL from a payload is ever fetched.
   */
  isSlackResponseUrl(value: unknown): value is string {
    if (typeof value !== 'string') return false;
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      return false;
    }
    const apiUrl = this.slack?.apiUrl ?? SLACK_API_URL;
    const allowed = apiUrl === SLACK_API_URL ? SLACK_RESPONSE_ORIGIN : new URL(apiUrl).origin;
    return url.origin === allowed && !url.username && !url.password;
  }

  /** Every chat credential out of a text: the bot token, the signing secret, the Teams URLs (and `more`, a dashboard route's). */
  redact(text: string, more: (string | null)[] = []): string {
    return redactSecrets(text, [this.slack?.botToken, this.slack?.signingSecret, ...this.teams.map((t) => t.url), ...more]);
  }
}

import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { OutboundRefusal } from '../../outbox/retry-policy';
import { OutboxService } from '../../outbox/outbox.service';
import type { OutboxSender } from '../../outbox/outbox-sender';
import { ChatDestinations } from '../chat-destinations';
import { SlackMessagesRepository } from './slack-messages.repository';
import { SlackApiError } from './slack-web-api';

export const SLACK_NOTICE_KIND = 'slack';
export const SLACK_RESPONSE_KIND = 'slack-response';

/** A queued notice: the whole message as it stood when queued (the newest state of the build). */
export interface QueuedSlackNotice {
  buildId: number;
  channel: string;
  text: string;
  blocks: unknown[];
}

/** A queued answer to a button press, shown only to the member who pressed it. */
export interface QueuedSlackResponse {
  responseUrl: string;
  text: string;
}

const noRetry = (message: string) => new OutboundRefusal(0, new Headers(), message, false);

/**
 * A build's notice in a channel: posted once (chat.postMessage), then updated in place (chat.update
 * with the kept ts). Notices of a build are sent in the order they were queued; a retried one that
 * a newer notice overtook is dropped (the message already shows newer facts). A kill -9 between
 * Slack's answer and keeping the ts posts the message again (at least once).
 */
@Injectable()
export class SlackNoticeSender implements OutboxSender, OnModuleInit {
  readonly kind = SLACK_NOTICE_KIND;
  private readonly logger = new Logger('Chat');

  constructor(
    private readonly outbox: OutboxService,
    private readonly destinations: ChatDestinations,
    private readonly messages: SlackMessagesRepository,
    private readonly clock: Clock,
  ) {}

  onModuleInit(): void {
    this.outbox.register(this);
  }

  queue(notice: QueuedSlackNotice): Promise<void> {
    return this.outbox.enqueue(SLACK_NOTICE_KIND, `slack:${notice.channel}`, notice);
  }

  async send(payload: unknown, message: { id: number }): Promise<void> {
    const notice = payload as QueuedSlackNotice;
    const api = this.destinations.slackApi;
    if (!api) throw noRetry(`no Slack bot token (${this.destinations.slack?.botTokenEnv ?? 'chat.slack'} unset)`);
    const posted = await this.messages.find(notice.buildId, notice.channel);
    if (posted && posted.outboxMessageId > message.id) return;
    if (posted) {
      try {
        await api.update(notice.channel, posted.ts, notice.text, notice.blocks);
        return this.keep(notice, posted.ts, message.id);
      } catch (err) {
        // Someone deleted the message in Slack: the notice is posted anew.
        if (!(err instanceof SlackApiError && err.error === 'message_not_found')) throw err;
      }
    }
    const { ts } = await api.postMessage(notice.channel, notice.text, notice.blocks);
    await this.keep(notice, ts, message.id);
  }

  redact(text: string): string {
    return this.destinations.redact(text);
  }

  private async keep(notice: QueuedSlackNotice, ts: string, messageId: number): Promise<void> {
    try {
      await this.messages.save({ buildId: notice.buildId, channel: notice.channel, ts, outboxMessageId: messageId, now: this.clock.nowMs() });
    } catch (err) {
      // Slack has the message (a build deleted meanwhile has no row to keep): sending again would post a second one.
      this.logger.warn(`Slack message of build ${notice.buildId} in ${notice.channel} not kept: ${(err as Error).message}`);
    }
  }
}

/** Answers to button presses, posted to the press's `response_url` (Slack's own host only) as ephemeral messages. */
@Injectable()
export class SlackResponseSender implements OutboxSender, OnModuleInit {
  readonly kind = SLACK_RESPONSE_KIND;

  constructor(
    private readonly outbox: OutboxService,
    private readonly destinations: ChatDestinations,
  ) {}

  onModuleInit(): void {
    this.outbox.register(this);
  }

  queue(response: QueuedSlackResponse): Promise<void> {
    return this.outbox.enqueue(SLACK_RESPONSE_KIND, 'slack:responses', response);
  }

  async send(payload: unknown): Promise<void> {
    const { responseUrl, text } = payload as QueuedSlackResponse;
    if (!this.destinations.isSlackResponseUrl(responseUrl)) throw noRetry('the response URL is not Slack\'s');
    const res = await this.destinations.fetch(responseUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify({ response_type: 'ephemeral', replace_original: false, text }),
    });
    const body = await res.text();
    if (!res.ok) throw new OutboundRefusal(res.status, res.headers, this.redact(`Slack response: HTTP ${res.status} ${body.slice(0, 200)}`));
  }

  /** A response URL lets anyone post into the conversation for 30 minutes: never shown. */
  redact(text: string): string {
    return this.destinations.redact(text).replace(/https?:\/\/\S+/g, '<response URL>');
  }
}

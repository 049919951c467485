import { Injectable, OnModuleInit } from '@nestjs/common';
import { OutboundRefusal } from '../../outbox/retry-policy';
import { OutboxService } from '../../outbox/outbox.service';
import type { OutboxSender } from '../../outbox/outbox-sender';
import { ChatDestinations } from '../chat-destinations';
import { ChatRoutesService } from '../routes/chat-routes.service';

export const TEAMS_KIND = 'teams';

/** A queued Teams notice: the route's name (its URL stays in the environment) and the message with its Adaptive Card. */
export interface QueuedTeamsNotice {
  route: string;
  message: unknown;
}

/**
 * Teams notices, POSTed to the route's Workflows or incoming-webhook URL (Workflows answer 202).
 * Teams cannot edit a message posted this way: each notice is a new card.
 */
@Injectable()
export class TeamsSender implements OutboxSender, OnModuleInit {
  readonly kind = TEAMS_KIND;

  constructor(
    private readonly outbox: OutboxService,
    private readonly destinations: ChatDestinations,
    private readonly routes: ChatRoutesService,
  ) {}

  onModuleInit(): void {
    this.outbox.register(this);
  }

  queue(notice: QueuedTeamsNotice): Promise<void> {
    return this.outbox.enqueue(TEAMS_KIND, `teams:${notice.route}`, notice);
  }

  async send(payload: unknown): Promise<void> {
    const notice = payload as QueuedTeamsNotice;
    const route = await this.routes.teamsRoute(notice.route);
    if (!route?.url) throw new OutboundRefusal(0, new Headers(), `no URL for Teams destination "${notice.route}" (${route?.problem ?? 'removed'})`, false);
    const fetch = route.policy === 'api' ? this.destinations.apiFetch : this.destinations.fetch;
    const res = await fetch(route.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(notice.message),
    });
    const body = await res.text();
    if (!res.ok) throw new OutboundRefusal(res.status, res.headers, this.destinations.redact(`Teams: HTTP ${res.status} ${body.slice(0, 200)}`, [route.url]));
  }

  /** The file's URLs; a dashboard route's URL is redacted where the refusal is made (above). */
  redact(text: string): string {
    return this.destinations.redact(text);
  }
}

import { Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { actorOf, auditEvent } from '../../audit/audit-actor';
import { AUDIT_EVENT } from '../../audit/audit-event';
import type { Principal } from '../../common/auth/principal';
import { Clock } from '../../common/clock';
import { SECRETS_KEY_ENV, SecretBox } from '../../common/crypto/secret-box';
import { badRequest, conflict, notFound } from '../../common/errors/http-error';
import type { ChatAudience } from '../../config/chat-config';
import { DestinationGuard, DestinationRefused } from '../../webhooks/destination/destination-guard';
import { ChatDestinations } from '../chat-destinations';
import { ChatRoutesChangedEvent } from '../events/chat-routes-changed.event';
import { type ChatKind, ChatRoutesRepository } from './chat-routes.repository';

const URL_PURPOSE = 'chat-route:teams-url';
export const CHAT_SECRETS_KEY_MISSING = `Teams webhooks added in the dashboard keep their URL encrypted: set ${SECRETS_KEY_ENV} in the relay's environment (32 random bytes, e.g. openssl rand -base64 32) and restart the relay`;

/** One chat destination, from svc.config.json (`id` null) or the dashboard. */
export interface ChatRoute extends ChatAudience {
  id: number | null;
  origin: 'file' | 'dashboard';
  kind: ChatKind;
  /** The Slack channel id, or the Teams route's name. */
  target: string;
  /** Teams: the webhook URL (a credential: never returned), null when unreadable or unset. */
  url: string | null;
  /** Teams: the SSRF rule its URL is held to (the operator's for the file, the API's for the dashboard). */
  policy: 'operator' | 'api';
  /** Why it is not used (a variable unset, a URL that cannot be decrypted); null when it is. */
  problem: string | null;
}

/**
 * Where notices go (docs/integrations.md "Slack and Microsoft Teams"): svc.config.json's channels
 * and webhooks first, then those Admins add in the dashboard (a Teams URL sealed at rest, held to
 * the rule of webhooks registered through the API: the LAN, never this host).
 */
@Injectable()
export class ChatRoutesService {
  constructor(
    private readonly destinations: ChatDestinations,
    private readonly routes: ChatRoutesRepository,
    private readonly box: SecretBox,
    private readonly guard: DestinationGuard,
    private readonly clock: Clock,
    private readonly events: EventEmitter2,
  ) {}

  async all(): Promise<ChatRoute[]> {
    const slack = this.destinations.slack;
    const file: ChatRoute[] = [
      ...(slack?.channels ?? []).map((c): ChatRoute => ({
        id: null, origin: 'file', kind: 'slack', target: c.channel, url: null, policy: 'operator', apps: c.apps, branches: c.branches,
        problem: slack?.botToken ? null : `${slack?.botTokenEnv} is unset`,
      })),
      ...this.destinations.teams.map((t): ChatRoute => ({
        id: null, origin: 'file', kind: 'teams', target: t.name, url: t.url, policy: 'operator', apps: t.apps, branches: t.branches,
        problem: t.url ? null : `${t.urlEnv} is unset`,
      })),
    ];
    const dashboard = (await this.routes.all()).map((r): ChatRoute => {
      let url: string | null = null;
      let problem: string | null = r.kind === 'slack' && !slack?.botToken ? 'Slack is not configured (chat.slack in svc.config.json)' : null;
      if (r.urlSealed) {
        try {
          url = this.box.open(r.urlSealed, URL_PURPOSE);
        } catch (err) {
          problem = `its URL cannot be read: ${(err as Error).message}`;
        }
      }
      return { id: r.id, origin: 'dashboard', kind: r.kind, target: r.target, url, policy: 'api', apps: r.apps, branches: r.branches, problem };
    });
    return [...file, ...dashboard];
  }

  async teamsRoute(name: string): Promise<ChatRoute | null> {
    return (await this.all()).find((r) => r.kind === 'teams' && r.target === name) ?? null;
  }

  async create(actor: Principal, input: { kind: ChatKind; target: string; url: string | null; apps: string[] | null; branches: string[] | null }): Promise<ChatRoute> {
    if ((await this.all()).some((r) => r.kind === input.kind && r.target === input.target)) {
      throw conflict(input.kind === 'slack' ? `Channel ${input.target} already gets notices` : `A Teams destination is already named ${input.target}`);
    }
    let urlSealed: string | null = null;
    if (input.kind === 'teams') {
      if (!input.url) throw badRequest('url is required for a Teams destination');
      if (!this.box.configured) throw badRequest(CHAT_SECRETS_KEY_MISSING);
      try {
        await this.guard.vet(input.url, 'api');
      } catch (err) {
        if (err instanceof DestinationRefused) throw badRequest(`Teams URL refused: ${err.reason}`);
        throw err;
      }
      urlSealed = this.box.seal(input.url, URL_PURPOSE);
    }
    await this.routes.insert({ kind: input.kind, target: input.target, urlSealed, apps: input.apps, branches: input.branches, now: this.clock.nowMs() });
    this.events.emit(ChatRoutesChangedEvent.eventName, new ChatRoutesChangedEvent());
    const created = (await this.all()).find((r) => r.origin === 'dashboard' && r.kind === input.kind && r.target === input.target)!;
    this.events.emit(AUDIT_EVENT, auditEvent(actorOf(actor), 'chat_route.created', `chat_route:${created.id}`, { kind: input.kind, target: input.target }));
    return created;
  }

  async delete(actor: Principal, id: number): Promise<void> {
    const route = (await this.routes.all()).find((r) => r.id === id);
    if (!route) throw notFound('Chat destination not found');
    await this.routes.delete(id);
    this.events.emit(ChatRoutesChangedEvent.eventName, new ChatRoutesChangedEvent());
    this.events.emit(AUDIT_EVENT, auditEvent(actorOf(actor), 'chat_route.deleted', `chat_route:${id}`, { kind: route.kind, target: route.target }));
  }
}

import { Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { AUDIT_EVENT, AuditEvent } from '../audit/audit-event';
import { RelayConfig } from '../config/relay-config';
import { JsonLogger } from '../logging/json-logger';
import { OidcFlow, OidcSignInService } from '../identity/oidc-sign-in.service';
import { SsoMembersService } from '../identity/sso-members.service';
import { SsoRefusal } from '../identity/sso-refusal';
import { PublicUrlService } from '../relay/public-url.service';
import { ActiveSession, SessionsService } from './sessions.service';

export const OIDC_CALLBACK_PATH = '/api/v1/auth/oidc/callback';

/**
 * Sign-in through the OpenID provider: the redirect out, and the callback that turns a validated ID
 * token into a member and a session (the same `svc_token` session as a password sign-in).
 */
@Injectable()
export class SsoSignInService {
  constructor(
    private readonly config: RelayConfig,
    private readonly publicUrl: PublicUrlService,
    private readonly oidc: OidcSignInService,
    private readonly members: SsoMembersService,
    private readonly sessions: SessionsService,
    private readonly events: EventEmitter2,
    private readonly logger: JsonLogger,
  ) {}

  /**
   * The relay's own origin for the redirect URI registered at the provider: the canonical origin
   * (the one links use: tunnel, else a relay.url others can open), else the origin this request
   * came to (a relay reached on one address).
   */
  origin(requestOrigin: string): string {
    return this.publicUrl.originFor(requestOrigin);
  }

  /** The origin a flow must start on to finish (its cookie is set there), or null: any. */
  canonicalOrigin(): string | null {
    return this.publicUrl.publicBaseUrl();
  }

  begin(origin: string, next: string | undefined): Promise<{ url: string; flow: OidcFlow }> {
    return this.withReachableProvider(() => this.oidc.begin(origin + OIDC_CALLBACK_PATH, samePath(next)));
  }

  async complete(
    origin: string,
    params: Record<string, string>,
    flow: OidcFlow | null,
    clientAddress: string | null,
  ): Promise<{ session: ActiveSession; next: string }> {
    if (!flow) {
      this.failed(clientAddress, 'no_flow');
      throw new SsoRefusal(
        'This sign-in was not started from this browser, or took longer than 10 minutes. Start again from the sign-in page.',
        'no_flow',
      );
    }
    let finished: Awaited<ReturnType<OidcSignInService['finish']>>;
    try {
      finished = await this.withReachableProvider(() => this.oidc.finish(origin + OIDC_CALLBACK_PATH, params, flow, clientAddress));
    } catch (err) {
      if (err instanceof SsoRefusal) this.failed(clientAddress, err.reason);
      throw err;
    }
    const member = await this.members.signIn(finished.identity);
    return { session: await this.sessions.start(member.id, 'oidc'), next: flow.next };
  }

  logoutUrl(origin: string): Promise<string | null> {
    return this.withReachableProvider(() => this.oidc.logoutUrl(origin + OIDC_CALLBACK_PATH, `${origin}/signin`, null));
  }

  private async withReachableProvider<T>(step: () => Promise<T>): Promise<T> {
    try {
      return await step();
    } catch (err) {
      if (err instanceof SsoRefusal) throw err;
      this.logger.warn(`OIDC provider step failed: ${(err as Error).message}`, 'SsoSignIn');
      const name = this.config.sso.oidc?.name ?? 'The identity provider';
      throw new SsoRefusal(`${name} could not be reached. Try again in a moment, or ask an Admin of the relay.`, 'provider_unreachable');
    }
  }

  private failed(clientAddress: string | null, reason: string): void {
    this.events.emit(AUDIT_EVENT, new AuditEvent('auth.sign_in_failed', null, 'anonymous', 'sso', null, clientAddress, { method: 'oidc', reason }));
  }
}

/**
 * Where to go after signing in: a path on this relay only (`/builds?x=1`), never another origin
 * (`//evil`, `/\evil`, `https://…`), so the sign-in link cannot be turned into an open redirect.
 */
export function samePath(next: string | undefined): string {
  if (!next || next.length > 2000 || !next.startsWith('/') || /^\/[/\\]/.test(next) || /[\u0000-\u001f\\]/.test(next)) return '/';
  return next;
}

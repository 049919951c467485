import { Injectable } from '@nestjs/common';
import type { BaseClient, IdTokenClaims } from 'openid-client';
import { JsonLogger } from '../logging/json-logger';
import { RelayConfig } from '../config/relay-config';
import type { OidcConfig } from '../config/sso-config';
import { groupsFromClaim } from './role-mapping';
import { SsoRefusal } from './sso-refusal';
import type { ExternalIdentity } from './sso-members.service';

/** Loaded on the first OIDC sign-in, not at start-up: most relays have no provider (docs/decisions.md#s1). */
const openid = () => require('openid-client') as typeof import('openid-client');

/** What the browser keeps between the redirect to the provider and the callback (the flow cookie). */
export interface OidcFlow {
  state: string;
  nonce: string;
  codeVerifier: string;
  next: string;
}

/**
 * OpenID Connect authorization code flow with PKCE, state and nonce, through openid-client 5 (the
 * CommonJS line; docs/dependencies.md). The provider's metadata is discovered on first use and
 * kept; a failed discovery is retried on the next sign-in. openid-client checks the ID token:
 * signature against the provider's JWKS (RS256 unless the client says otherwise: `none` is
 * refused), `iss`, `aud`, `azp`, `exp`/`iat` with no tolerance beyond its default, and the nonce.
 */
@Injectable()
export class OidcSignInService {
  private client: Promise<BaseClient> | null = null;
  private clientRedirect: string | null = null;

  constructor(
    private readonly config: RelayConfig,
    private readonly logger: JsonLogger,
  ) {}

  get settings(): OidcConfig | null {
    return this.config.sso.oidc;
  }

  /** The provider's authorization URL for a new flow, and the flow to keep in the browser. */
  async begin(redirectUri: string, next: string): Promise<{ url: string; flow: OidcFlow }> {
    const settings = this.required();
    const client = await this.clientFor(redirectUri);
    const { generators } = openid();
    const flow: OidcFlow = { state: generators.state(), nonce: generators.nonce(), codeVerifier: generators.codeVerifier(), next };
    const url = client.authorizationUrl({
      scope: requestedScopes(settings, client.issuer.metadata.scopes_supported).join(' '),
      state: flow.state,
      nonce: flow.nonce,
      code_challenge: generators.codeChallenge(flow.codeVerifier),
      code_challenge_method: 'S256',
      redirect_uri: redirectUri,
    });
    return { url, flow };
  }

  /** Exchanges the code and validates the ID token; any failure is a refusal naming what was wrong (never the token). */
  async finish(
    redirectUri: string,
    params: Record<string, string>,
    flow: OidcFlow,
    clientAddress: string | null,
  ): Promise<{ identity: ExternalIdentity; idToken: string | null }> {
    const settings = this.required();
    const client = await this.clientFor(redirectUri);
    if (params.error) throw new SsoRefusal(`${settings.name} did not sign you in: ${params.error_description || params.error}.`, 'provider_error');
    let claims: IdTokenClaims;
    let idToken: string | null;
    let extra: Record<string, unknown> = {};
    try {
      const tokens = await client.callback(redirectUri, params, {
        state: flow.state,
        nonce: flow.nonce,
        code_verifier: flow.codeVerifier,
        response_type: 'code',
      });
      claims = tokens.claims();
      idToken = tokens.id_token ?? null;
      // Providers that keep groups out of the ID token (Okta's default, Keycloak without a mapper) give them at userinfo.
      if (claims[settings.roleClaim] === undefined && client.issuer.metadata.userinfo_endpoint && tokens.access_token) {
        extra = await client.userinfo(tokens.access_token);
        if (extra.sub !== claims.sub) extra = {};
      }
    } catch (err) {
      const { errors } = openid();
      if (err instanceof errors.RPError || err instanceof errors.OPError) {
        this.logger.warn(`OIDC sign-in refused: ${err.message}`, 'OidcSignIn');
        throw new SsoRefusal(`The sign-in answer from ${settings.name} could not be verified (${err.message}). Try signing in again.`, 'token_invalid');
      }
      throw err;
    }
    const email = typeof claims.email === 'string' ? claims.email.trim().toLowerCase() : typeof extra.email === 'string' ? extra.email.trim().toLowerCase() : '';
    if (!email) throw new SsoRefusal(`${settings.name} did not tell the relay your e-mail address (the "email" scope and claim are needed).`, 'no_email');
    const verified = claims.email !== undefined ? claims.email_verified === true : extra.email_verified === true;
    const name = typeof claims.name === 'string' ? claims.name : typeof extra.name === 'string' ? extra.name : null;
    const externalId = settings.externalIdClaim ? claimString(claims[settings.externalIdClaim] ?? extra[settings.externalIdClaim]) : null;
    return {
      idToken,
      identity: {
        provider: 'oidc',
        subject: `${claims.iss} ${claims.sub}`,
        providerName: settings.name,
        email,
        emailVerified: verified,
        externalId,
        displayName: name,
        groups: groupsFromClaim(claims[settings.roleClaim] ?? extra[settings.roleClaim]),
        groupsFrom: `claim "${settings.roleClaim}"`,
        noGroupsHint:
          `If you are in a group, ${settings.name} did not send it: an Admin of the relay adds the scope that releases ` +
          `"${settings.roleClaim}" to sso.oidc.scopes, or sets sso.oidc.roleClaim to the claim that carries your groups (docs/identity.md).`,
        mapping: settings,
        clientAddress,
      },
    };
  }

  /** RP-initiated logout: the provider's end-session URL, or null when it has none. */
  async logoutUrl(redirectUri: string, postLogoutRedirectUri: string, idTokenHint: string | null): Promise<string | null> {
    const client = await this.clientFor(redirectUri);
    if (!client.issuer.metadata.end_session_endpoint) return null;
    return client.endSessionUrl({
      post_logout_redirect_uri: postLogoutRedirectUri,
      ...(idTokenHint ? { id_token_hint: idTokenHint } : { client_id: this.required().clientId }),
    });
  }

  private required(): OidcConfig {
    if (!this.settings) throw new Error('OIDC is not configured');
    return this.settings;
  }

  private clientFor(redirectUri: string): Promise<BaseClient> {
    if (!this.client || this.clientRedirect !== redirectUri) {
      const settings = this.required();
      this.clientRedirect = redirectUri;
      this.client = openid().Issuer.discover(settings.issuer).then(
        (issuer) =>
          new issuer.Client({
            client_id: settings.clientId,
            client_secret: settings.clientSecret ?? undefined,
            redirect_uris: [redirectUri],
            response_types: ['code'],
            token_endpoint_auth_method: settings.clientSecret ? 'client_secret_basic' : 'none',
          }),
      );
      this.client.catch((err: Error) => {
        this.logger.error(`OIDC discovery of ${settings.issuer} failed: ${err.message}`, undefined, 'OidcSignIn');
        this.client = null;
      });
    }
    return this.client;
  }
}

/**
 * The configured scopes, plus the role claim's own scope when the provider advertises one of that
 * name: Okta, Authentik, Dex, Zitadel and oidc-provider release `groups` only for a `groups`
 * scope, so with the default scopes a member of a mapped group would arrive with none.
 */
export function requestedScopes(settings: Pick<OidcConfig, 'scopes' | 'roleClaim'>, advertised: unknown): string[] {
  const offered = Array.isArray(advertised) && advertised.includes(settings.roleClaim);
  return offered && !settings.scopes.includes(settings.roleClaim) ? [...settings.scopes, settings.roleClaim] : settings.scopes;
}

/** A claim as a string (a number too: some providers send ids as numbers); anything else is none. */
function claimString(value: unknown): string | null {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return typeof value === 'string' && value !== '' ? value : null;
}

import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How the stub signs the next ID token: right, or wrong in one way the relay must refuse. */
export type StubTokenFault = 'none' | 'wrong-audience' | 'expired' | 'bad-nonce' | 'unsigned' | 'foreign-key';

/**
 * A hand-made OpenID provider on loopback for the cases a certified provider will not produce:
 * ID tokens with a wrong audience, expired, with another nonce, unsigned (`alg: none`) or signed by
 * a key not in its JWKS. The happy path is the same protocol (discovery, authorize → code, token
 * with PKCE checked, JWKS, userinfo, end-session), so tests of provisioning and roles run here quickly;
 * `oidc-provider.mjs` is the real provider for the full flow.
 */
export class OidcStub {
  /** The claims of the next sign-in (sub, email, email_verified, groups, …). */
  claims: Record<string, unknown> = {};
  fault: StubTokenFault = 'none';
  /** PKCE was checked at the token endpoint for every code (false once a verifier did not match). */
  pkceChecked = true;
  readonly clientId = 'svc-relay';
  readonly clientSecret = randomBytes(16).toString('hex');
  private readonly key = generateKeyPairSync('rsa', { modulusLength: 2048 });
  private readonly foreignKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  private readonly codes = new Map<string, { nonce: string; challenge: string; claims: Record<string, unknown> }>();
  private server!: Server;
  issuer = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', this.issuer);
      const json = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (url.pathname === '/.well-known/openid-configuration') {
        return json(200, {
          issuer: this.issuer,
          authorization_endpoint: `${this.issuer}/authorize`,
          token_endpoint: `${this.issuer}/token`,
          jwks_uri: `${this.issuer}/jwks`,
          userinfo_endpoint: `${this.issuer}/userinfo`,
          end_session_endpoint: `${this.issuer}/logout`,
          response_types_supported: ['code'],
          subject_types_supported: ['public'],
          id_token_signing_alg_values_supported: ['RS256'],
          code_challenge_methods_supported: ['S256'],
        });
      }
      if (url.pathname === '/jwks') return json(200, { keys: [{ ...this.key.publicKey.export({ format: 'jwk' }), kid: 'k1', use: 'sig', alg: 'RS256' }] });
      if (url.pathname === '/authorize') {
        const code = randomBytes(12).toString('hex');
        this.codes.set(code, { nonce: url.searchParams.get('nonce') ?? '', challenge: url.searchParams.get('code_challenge') ?? '', claims: this.claims });
        const back = new URL(url.searchParams.get('redirect_uri') ?? '');
        back.searchParams.set('code', code);
        back.searchParams.set('state', url.searchParams.get('state') ?? '');
        res.writeHead(302, { location: back.toString() });
        return res.end();
      }
      if (url.pathname === '/token') {
        let body = '';
        req.on('data', (chunk) => (body += chunk));
        req.on('end', () => {
          const form = new URLSearchParams(body);
          const grant = this.codes.get(form.get('code') ?? '');
          if (!grant) return json(400, { error: 'invalid_grant' });
          this.codes.delete(form.get('code')!);
          const verifier = form.get('code_verifier') ?? '';
          if (createHash('sha256').update(verifier).digest('base64url') !== grant.challenge) {
            this.pkceChecked = false;
            return json(400, { error: 'invalid_grant', error_description: 'PKCE verification failed' });
          }
          json(200, { access_token: `at-${randomBytes(8).toString('hex')}`, token_type: 'Bearer', expires_in: 300, id_token: this.idToken(grant.nonce, grant.claims) });
        });
        return;
      }
      if (url.pathname === '/userinfo') return json(200, this.claims);
      res.writeHead(404);
      res.end();
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.issuer = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private idToken(nonce: string, claims: Record<string, unknown>): string {
    const now = Math.floor(Date.now() / 1000);
    const payload = {
      iss: this.issuer,
      aud: this.fault === 'wrong-audience' ? 'someone-else' : this.clientId,
      iat: this.fault === 'expired' ? now - 7200 : now,
      exp: this.fault === 'expired' ? now - 3600 : now + 300,
      nonce: this.fault === 'bad-nonce' ? 'not-the-nonce' : nonce,
      ...claims,
    };
    const alg = this.fault === 'unsigned' ? 'none' : 'RS256';
    const head = Buffer.from(JSON.stringify({ alg, typ: 'JWT', ...(alg === 'RS256' ? { kid: 'k1' } : {}) })).toString('base64url');
    const input = `${head}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
    if (alg === 'none') return `${input}.`;
    const key: KeyObject = this.fault === 'foreign-key' ? this.foreignKey : this.key.privateKey;
    return `${input}.${sign('sha256', Buffer.from(input), key).toString('base64url')}`;
  }
}

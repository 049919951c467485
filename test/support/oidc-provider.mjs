// The certified OpenID provider (oidc-provider, ES modules only) on loopback for the OIDC tests,
// run in a child process by test/support/oidc-provider.ts because jest here loads CommonJS only.
// Configuration comes as JSON in OIDC_TEST_CONFIG: { port, clientId, clientSecret, redirectUri,
// postLogoutRedirectUri, accounts: { <id>: claims }, groupsScope }. `groups` is released only for
// the scope groupsScope names (default "groups", advertised in the discovery document's
// scopes_supported, as Okta, Authentik and Dex do); null: never released. Logging in is scripted: the interaction
// page signs in as the account last chosen with GET /test/login-as?account=<id> and grants what
// the client asked for, so a browser or a fetch loop goes straight through (the provider's login
// form is not what the relay's tests are about). Prints "READY <issuer>" when listening.
import { createServer } from 'node:http';
import Provider from 'oidc-provider';

const config = JSON.parse(process.env.OIDC_TEST_CONFIG ?? '{}');
const issuer = `http://127.0.0.1:${config.port}`;
let loginAs = Object.keys(config.accounts)[0];
const groupsScope = config.groupsScope === undefined ? 'groups' : config.groupsScope;

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: config.clientId,
      client_secret: config.clientSecret,
      redirect_uris: [config.redirectUri],
      post_logout_redirect_uris: [config.postLogoutRedirectUri],
      response_types: ['code'],
      grant_types: ['authorization_code'],
      token_endpoint_auth_method: 'client_secret_basic',
    },
  ],
  // A scope named in `claims` is advertised in scopes_supported too.
  scopes: ['openid', 'email', 'profile'],
  claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'], ...(groupsScope ? { [groupsScope]: ['groups'] } : {}) },
  // Kept at its default (true): scope-requested claims travel at userinfo, not in the ID token, as
  // at Okta; the relay must fetch the groups there.
  conformIdTokenClaims: true,
  pkce: { required: () => true },
  // The default pages load a web font from the internet: these are plain, so the browser test's only traffic is loopback.
  features: {
    devInteractions: { enabled: false },
    rpInitiatedLogout: {
      enabled: true,
      logoutSource: (ctx, form) => {
        ctx.body = `<!doctype html><title>Sign out</title><h1>Sign out of the test provider?</h1>${form}<button type="submit" form="op.logoutForm" value="yes" name="logout">Yes, sign me out</button>`;
      },
      postLogoutSuccessSource: (ctx) => {
        ctx.body = '<!doctype html><title>Signed out</title><h1>Signed out</h1>';
      },
    },
  },
  renderError: (ctx, out) => {
    ctx.type = 'html';
    ctx.body = `<!doctype html><title>Error</title><pre>${JSON.stringify(out).replace(/</g, '&lt;')}</pre>`;
  },
  interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  cookies: { keys: ['oidc-test-cookie-key'] },
  findAccount: (_ctx, id) => (config.accounts[id] ? { accountId: id, claims: () => ({ sub: id, ...config.accounts[id] }) } : undefined),
});
provider.on('server_error', (_ctx, err) => console.error('provider server_error', err));

const callback = provider.callback();
const server = createServer(async (req, res) => {
  try {
    const url = new URL(req.url, issuer);
    if (url.pathname === '/test/login-as') {
      loginAs = url.searchParams.get('account');
      res.writeHead(204).end();
      return;
    }
    if (url.pathname.startsWith('/interaction/')) {
      const details = await provider.interactionDetails(req, res);
      if (details.prompt.name === 'login') {
        await provider.interactionFinished(req, res, { login: { accountId: loginAs } }, { mergeWithLastSubmission: false });
        return;
      }
      const grant = details.grantId
        ? await provider.Grant.find(details.grantId)
        : new provider.Grant({ accountId: details.session.accountId, clientId: details.params.client_id });
      const missing = details.prompt.details;
      if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
      if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
      const grantId = await grant.save();
      await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
      return;
    }
    callback(req, res);
  } catch (err) {
    console.error('interaction failed', err);
    res.writeHead(500).end(String(err));
  }
});
server.listen(config.port, '127.0.0.1', () => console.log(`READY ${issuer}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));

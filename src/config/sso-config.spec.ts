import { readSsoConfig } from './sso-config';

describe('readSsoConfig', () => {
  const oidc = { issuer: 'https://login.example.com/', clientId: 'relay', roles: { Admin: ['admins'] } };

  it('is off without an sso section', () => {
    expect(readSsoConfig(undefined, {})).toEqual({ oidc: null, ldap: null, only: false });
  });

  it('reads sso.oidc with its defaults and the secret from the environment', () => {
    const config = readSsoConfig({ oidc: { ...oidc, clientSecretEnv: 'OIDC_SECRET' } }, { OIDC_SECRET: 's3cret' });
    expect(config.oidc).toEqual({
      issuer: 'https://login.example.com/',
      clientId: 'relay',
      clientSecretEnv: 'OIDC_SECRET',
      clientSecret: 's3cret',
      scopes: ['openid', 'email', 'profile'],
      roleClaim: 'groups',
      externalIdClaim: null,
      name: 'login.example.com',
      roles: { Admin: ['admins'], Developer: [], QA: [], Viewer: [] },
      defaultRole: null,
    });
  });

  it.each([
    [{ oidc: { ...oidc, issuer: 'ftp://x' } }, 'sso.oidc.issuer'],
    [{ oidc: { ...oidc, clientId: '' } }, 'sso.oidc.clientId'],
    [{ oidc: { ...oidc, scopes: ['email'] } }, 'sso.oidc.scopes'],
    [{ oidc: { ...oidc, roles: { Owner: ['x'] } } }, 'sso.oidc.roles'],
    [{ oidc: { ...oidc, defaultRole: 'Boss' } }, 'sso.oidc.defaultRole'],
    [{ ldap: { url: 'http://x', bindDn: 'cn=a', bindPasswordEnv: 'P', searchBase: 'dc=x' } }, 'sso.ldap.url'],
    [{ ldap: { url: 'ldaps://x:636', startTls: true, bindDn: 'cn=a', bindPasswordEnv: 'P', searchBase: 'dc=x' } }, 'sso.ldap.startTls'],
    [{ ldap: { url: 'ldap://x', bindDn: 'cn=a', bindPasswordEnv: 'P', searchBase: 'dc=x', userFilter: '(uid=x)' } }, 'sso.ldap.userFilter'],
    [{ only: true }, 'sso.only'],
  ])('refuses %j naming %s', (value, key) => {
    expect(() => readSsoConfig(value, {})).toThrow(`Invalid configuration ${key}:`);
  });
});

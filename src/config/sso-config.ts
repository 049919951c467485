import { existsSync } from 'node:fs';
import { ROLES, type Role } from '../common/auth/role';
import { ConfigError } from './config-error';

type Env = Record<string, string | undefined>;

/** Which directory groups give which role (the same shape for OIDC and LDAP); the highest role wins. */
export interface RoleMapping {
  roles: Record<Role, string[]>;
  /** Role of a member none of whose groups is mapped; null refuses them. */
  defaultRole: Role | null;
}

export interface OidcConfig extends RoleMapping {
  issuer: string;
  clientId: string;
  clientSecretEnv: string | null;
  /** Read from clientSecretEnv at start-up; null for a public client (PKCE only). */
  clientSecret: string | null;
  scopes: string[];
  /** The ID-token / userinfo claim holding the member's groups (default "groups"). */
  roleClaim: string;
  /**
   * The ID-token / userinfo claim holding the value the provider sends as SCIM `externalId` (Okta:
   * `sub`; Entra ID with externalId mapped to objectId: `oid`); null: none. A member SCIM created is
   * linked without a verified e-mail only when it matches (docs/identity.md "Links and the two-factor policy").
   */
  externalIdClaim: string | null;
  /** Shown on the sign-in button: "Sign in with <name>" (default: the issuer's host). */
  name: string;
}

export interface LdapConfig extends RoleMapping {
  /** ldap://host:389 or ldaps://host:636. */
  url: string;
  /** Upgrade an ldap:// connection with StartTLS before binding. */
  startTls: boolean;
  /** PEM file of the CA that signed the directory's certificate (LDAPS / StartTLS); null: the system's. */
  caFile: string | null;
  bindDn: string;
  bindPasswordEnv: string;
  bindPassword: string | null;
  searchBase: string;
  /** Search filter with `{email}` where the (escaped) e-mail goes. */
  userFilter: string;
  /** Attribute of the user entry naming its groups (DNs or names), default memberOf. */
  groupAttribute: string;
  /** Where to search for groups that list the user (directories without memberOf); null: no search. */
  groupSearchBase: string | null;
  /** Group search filter with `{dn}` where the user's (escaped) DN goes. */
  groupFilter: string;
  timeoutMs: number;
}

export interface SsoConfig {
  oidc: OidcConfig | null;
  ldap: LdapConfig | null;
  /** Password sign-in, resets and password invitations refused except for break-glass members. */
  only: boolean;
}

/** Reads `sso` of svc.config.json (docs/identity.md); secrets come from the environment only. */
export function readSsoConfig(value: unknown, env: Env): SsoConfig {
  if (value === undefined || value === null) return { oidc: null, ldap: null, only: false };
  const sso = object(value, 'sso', '{ oidc?, ldap?, only? }');
  const only = sso.only ?? false;
  if (typeof only !== 'boolean') throw new ConfigError('sso.only', 'true or false', only);
  const config = { oidc: readOidc(sso.oidc, env), ldap: readLdap(sso.ldap, env), only };
  if (only && !config.oidc && !config.ldap) throw new ConfigError('sso.only', 'sso.oidc or sso.ldap configured alongside it');
  return config;
}

function readOidc(value: unknown, env: Env): OidcConfig | null {
  if (value === undefined || value === null) return null;
  const o = object(value, 'sso.oidc', '{ issuer, clientId, clientSecretEnv?, scopes?, roleClaim?, externalIdClaim?, roles, defaultRole? }');
  const issuer = string(o.issuer, 'sso.oidc.issuer');
  let host: string;
  try {
    const url = new URL(issuer);
    if (!['http:', 'https:'].includes(url.protocol)) throw new Error();
    host = url.host;
  } catch {
    throw new ConfigError('sso.oidc.issuer', 'an absolute https:// URL', issuer);
  }
  const clientSecretEnv = optionalString(o.clientSecretEnv, 'sso.oidc.clientSecretEnv');
  const scopes = o.scopes === undefined ? ['openid', 'email', 'profile'] : stringList(o.scopes, 'sso.oidc.scopes');
  if (!scopes.includes('openid')) throw new ConfigError('sso.oidc.scopes', 'a list including "openid"', o.scopes);
  return {
    issuer,
    clientId: string(o.clientId, 'sso.oidc.clientId'),
    clientSecretEnv,
    clientSecret: clientSecretEnv ? env[clientSecretEnv] || null : null,
    scopes,
    roleClaim: optionalString(o.roleClaim, 'sso.oidc.roleClaim') ?? 'groups',
    externalIdClaim: optionalString(o.externalIdClaim, 'sso.oidc.externalIdClaim'),
    name: optionalString(o.name, 'sso.oidc.name') ?? host,
    ...readMapping(o, 'sso.oidc'),
  };
}

function readLdap(value: unknown, env: Env): LdapConfig | null {
  if (value === undefined || value === null) return null;
  const l = object(value, 'sso.ldap', '{ url, bindDn, bindPasswordEnv, searchBase, userFilter?, groupAttribute?, startTls?, caFile?, roles, defaultRole? }');
  const url = string(l.url, 'sso.ldap.url');
  if (!/^ldaps?:\/\/[^/]+\/?$/i.test(url)) throw new ConfigError('sso.ldap.url', 'ldap://host:port or ldaps://host:port', url);
  const startTls = l.startTls ?? false;
  if (typeof startTls !== 'boolean') throw new ConfigError('sso.ldap.startTls', 'true or false', startTls);
  if (startTls && /^ldaps:/i.test(url)) throw new ConfigError('sso.ldap.startTls', 'false with an ldaps:// URL (already TLS)', startTls);
  const caFile = optionalString(l.caFile, 'sso.ldap.caFile');
  if (caFile && !existsSync(caFile)) throw new ConfigError('sso.ldap.caFile', 'the path of a readable PEM file', caFile);
  const bindPasswordEnv = string(l.bindPasswordEnv, 'sso.ldap.bindPasswordEnv');
  const userFilter = optionalString(l.userFilter, 'sso.ldap.userFilter') ?? '(mail={email})';
  if (!userFilter.includes('{email}')) throw new ConfigError('sso.ldap.userFilter', 'a filter containing {email}', userFilter);
  const groupFilter = optionalString(l.groupFilter, 'sso.ldap.groupFilter') ?? '(|(member={dn})(uniqueMember={dn}))';
  if (!groupFilter.includes('{dn}')) throw new ConfigError('sso.ldap.groupFilter', 'a filter containing {dn}', groupFilter);
  const timeoutMs = l.timeoutMs ?? 5000;
  if (typeof timeoutMs !== 'number' || !Number.isInteger(timeoutMs) || timeoutMs < 100 || timeoutMs > 60_000) {
    throw new ConfigError('sso.ldap.timeoutMs', 'a whole number from 100 to 60000', timeoutMs);
  }
  return {
    url,
    startTls,
    caFile,
    bindDn: string(l.bindDn, 'sso.ldap.bindDn'),
    bindPasswordEnv,
    bindPassword: env[bindPasswordEnv] || null,
    searchBase: string(l.searchBase, 'sso.ldap.searchBase'),
    userFilter,
    groupAttribute: optionalString(l.groupAttribute, 'sso.ldap.groupAttribute') ?? 'memberOf',
    groupSearchBase: optionalString(l.groupSearchBase, 'sso.ldap.groupSearchBase'),
    groupFilter,
    timeoutMs,
    ...readMapping(l, 'sso.ldap'),
  };
}

function readMapping(o: Record<string, unknown>, key: string): RoleMapping {
  const given = object(o.roles ?? {}, `${key}.roles`, '{ "Admin": [groups…], "Developer": […], "QA": […], "Viewer": […] }');
  const roles = { Admin: [], Developer: [], QA: [], Viewer: [] } as Record<Role, string[]>;
  for (const [name, groups] of Object.entries(given)) {
    if (!(ROLES as readonly string[]).includes(name)) throw new ConfigError(`${key}.roles`, `keys among ${ROLES.join(', ')}`, name);
    roles[name as Role] = stringList(groups, `${key}.roles.${name}`);
  }
  const defaultRole = o.defaultRole ?? null;
  if (defaultRole !== null && !(ROLES as readonly unknown[]).includes(defaultRole)) {
    throw new ConfigError(`${key}.defaultRole`, `one of ${ROLES.join(', ')} or null`, defaultRole);
  }
  return { roles, defaultRole: defaultRole as Role | null };
}

function object(value: unknown, key: string, shape: string): Record<string, unknown> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new ConfigError(key, `an object ${shape}`, value);
  return value as Record<string, unknown>;
}

function string(value: unknown, key: string): string {
  if (typeof value !== 'string' || !value.trim()) throw new ConfigError(key, 'a non-empty string', value);
  return value.trim();
}

function optionalString(value: unknown, key: string): string | null {
  return value === undefined || value === null ? null : string(value, key);
}

function stringList(value: unknown, key: string): string[] {
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string' || !v)) throw new ConfigError(key, 'a list of non-empty strings', value);
  return value as string[];
}

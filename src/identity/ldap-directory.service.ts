import { Injectable } from '@nestjs/common';
import type { Client as LdapClient } from 'ldapts';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import type { ConnectionOptions } from 'node:tls';
import { RelayConfig } from '../config/relay-config';
import type { LdapConfig } from '../config/sso-config';
import { JsonLogger } from '../logging/json-logger';
import type { ExternalIdentity } from './sso-members.service';

/** Loaded on the first LDAP sign-in, not at start-up: most relays have no directory (docs/decisions.md#s1). */
const ldapts = () => require('ldapts') as typeof import('ldapts');

/** What the directory says about an e-mail and password. */
export type DirectoryAnswer =
  | { kind: 'member'; identity: ExternalIdentity }
  /** No entry has this e-mail: the relay's own password may still apply (break-glass members). */
  | { kind: 'unknown' }
  | { kind: 'wrong-password' }
  /** The directory could not be reached or refused the service account. */
  | { kind: 'unavailable' };

/**
 * LDAP / Active Directory through the normal sign-in form (docs/identity.md), with ldapts: bind as
 * the service account, find the one entry whose mail matches, bind as that entry with the password
 * typed, read its groups (the `memberOf`-style attribute, and/or a search for groups listing its DN),
 * and map them like OIDC groups. StartTLS
 * or LDAPS with the configured CA; a fresh connection per sign-in (sign-ins are rare, and a pooled
 * connection re-bound as a user would carry that user's rights).
 */
@Injectable()
export class LdapDirectoryService {
  constructor(
    private readonly config: RelayConfig,
    private readonly logger: JsonLogger,
  ) {}

  get settings(): LdapConfig | null {
    return this.config.sso.ldap;
  }

  async authenticate(email: string, password: string, clientAddress: string | null): Promise<DirectoryAnswer> {
    const settings = this.settings;
    if (!settings) return { kind: 'unknown' };
    // An empty password is an "unauthenticated bind" (RFC 4513 §5.1.2) that many servers accept: never send one.
    if (!password) return { kind: 'wrong-password' };
    // ldapts opens TLS at once whenever tlsOptions are given: only for ldaps://; StartTLS gets them when it upgrades.
    const ldaps = settings.url.toLowerCase().startsWith('ldaps:');
    const client: LdapClient = new (ldapts().Client)({ url: settings.url, timeout: settings.timeoutMs, connectTimeout: settings.timeoutMs, ...(ldaps ? { tlsOptions: this.tls(settings) } : {}) });
    try {
      if (settings.startTls) await client.startTLS(this.tls(settings));
      await client.bind(settings.bindDn, settings.bindPassword ?? '');
      const filter = settings.userFilter.split('{email}').join(escapeFilterValue(email.trim().toLowerCase()));
      const { searchEntries } = await client.search(settings.searchBase, {
        scope: 'sub',
        filter,
        attributes: ['dn', 'mail', 'cn', 'displayName', settings.groupAttribute],
        sizeLimit: 2,
      });
      // Two entries with one address: which person this is cannot be told, so nobody signs in as either.
      if (searchEntries.length !== 1) return { kind: 'unknown' };
      const entry = searchEntries[0];
      const groups = strings(entry[settings.groupAttribute]);
      if (settings.groupSearchBase) {
        // Still bound as the service account: a person's own bind may not read the groups.
        const found = await client.search(settings.groupSearchBase, {
          scope: 'sub',
          filter: settings.groupFilter.split('{dn}').join(escapeFilterValue(entry.dn)),
          attributes: ['dn'],
        });
        groups.push(...found.searchEntries.map((g) => g.dn));
      }
      try {
        await client.bind(entry.dn, password);
      } catch (err) {
        if (err instanceof ldapts().InvalidCredentialsError) return { kind: 'wrong-password' };
        throw err;
      }
      return {
        kind: 'member',
        identity: {
          provider: 'ldap',
          subject: entry.dn.toLowerCase(),
          providerName: 'the directory',
          email: email.trim().toLowerCase(),
          emailVerified: true,
          externalId: null,
          displayName: firstString(entry.displayName) ?? firstString(entry.cn),
          groups,
          groupsFrom: `attribute "${settings.groupAttribute}"` + (settings.groupSearchBase ? ` and groups under ${settings.groupSearchBase}` : ''),
          noGroupsHint:
            'If you are in a group, the directory did not say so: an Admin of the relay sets sso.ldap.groupAttribute ' +
            'to the attribute that lists your groups, or sso.ldap.groupSearchBase to where groups are (docs/identity.md).',
          mapping: settings,
          clientAddress,
        },
      };
    } catch (err) {
      this.logger.warn(`LDAP sign-in could not ask ${settings.url}: ${(err as Error).message}`, 'LdapDirectory');
      return { kind: 'unavailable' };
    } finally {
      await client.unbind().catch(() => undefined);
    }
  }

  private tls(settings: LdapConfig): ConnectionOptions {
    const host = new URL(settings.url).hostname.replace(/^\[|\]$/g, '');
    // SNI carries names only (RFC 6066); an address is still checked against the certificate's IP entries.
    // `host` too: StartTLS wraps the open socket, and without it Node checks the certificate against "localhost".
    return { host, ...(settings.caFile ? { ca: readFileSync(settings.caFile) } : {}), ...(isIP(host) ? {} : { servername: host }), minVersion: 'TLSv1.2' };
  }
}

/** RFC 4515 §3: a value inside a search filter, so an e-mail cannot widen the filter (`*`, `)(`). */
export function escapeFilterValue(value: string): string {
  return value.replace(/[\\*()\u0000]/g, (c) => `\\${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

function strings(value: unknown): string[] {
  const list = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return list.map((v) => (Buffer.isBuffer(v) ? v.toString('utf8') : String(v)));
}

function firstString(value: unknown): string | null {
  return strings(value)[0] ?? null;
}

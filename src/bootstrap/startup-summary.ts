import type { INestApplicationContext } from '@nestjs/common';
import type { RelayConfig } from '../config/relay-config';
import type { LogFields } from '../logging/json-logger';
import { maskUrlPassword, redactSecrets } from '../logging/mask-secrets';
import { PublicUrlService } from '../relay/public-url.service';
import { RelayHostDetailsService } from '../relay/relay-host-details.service';

/**
 * What this relay runs with, written once at start-up as one entry (one JSON object, or one text
 * block): database, file storage, Redis, sign-in methods, forges from the config file, the public
 * URL as links will use it, and the LAN address or why there is none. Values only, never a secret:
 * URL passwords become `***`, credentials are named by where they come from, and the configured
 * secrets are searched for by value as well (a password that also appears elsewhere in a URL).
 */
export function startupSummary(app: INestApplicationContext, config: RelayConfig): LogFields {
  const lan = app.get(RelayHostDetailsService, { strict: false }).lanAddress();
  const summary: LogFields = {
    database: config.database.type === 'sqlite' ? `sqlite ${config.database.path}` : `postgres ${maskUrlPassword(config.database.url)}`,
    storage: storage(config),
    redis: config.redis ? `${maskUrlPassword(config.redis.url)} (prefix ${config.redis.prefix})` : 'none (one instance)',
    sso: {
      oidc: config.sso.oidc ? config.sso.oidc.issuer : 'off',
      ldap: config.sso.ldap ? config.sso.ldap.url : 'off',
      only: config.sso.only ? 'on' : 'off',
    },
    forges: config.forges.map((forge) => `${forge.type} ${forge.url}${forge.app ? ' (App)' : ''}`),
    public_url: app.get(PublicUrlService, { strict: false }).publicBaseUrl() ?? 'none',
    lan_address: lan.address ?? `none (${lan.reason})`,
  };
  return JSON.parse(redactSecrets(JSON.stringify(summary), configuredSecrets(config)));
}

function storage(config: RelayConfig): string {
  if (config.storage.type === 'data-dir') return `data folder ${config.dataDir}`;
  const { bucket, prefix, endpoint, region } = config.storage;
  // Keys come from the AWS chain (AWS_ACCESS_KEY_ID…, a profile, a role) and are never shown.
  return `s3://${bucket}${prefix ? `/${prefix}` : ''} (${endpoint ?? 'AWS'}, ${region})`;
}

/** Every secret the configuration holds, so none can reach the summary by any path. */
function configuredSecrets(config: RelayConfig): (string | null | undefined)[] {
  const urlPassword = (url: string | undefined) => {
    try {
      return url ? decodeURIComponent(new URL(url).password) : null;
    } catch {
      return null;
    }
  };
  return [
    urlPassword(config.database.type === 'postgres' ? config.database.url : undefined),
    urlPassword(config.redis?.url),
    config.redis?.secret,
    config.smtp?.pass,
    config.sso.oidc?.clientSecret,
    config.sso.ldap?.bindPassword,
    config.audit.httpAuthorization,
    process.env.AWS_SECRET_ACCESS_KEY,
    ...config.webhooks.map((webhook) => webhook.secret),
    ...config.forges.flatMap((forge) => [forge.token, forge.app?.privateKey]),
  ];
}

import type { RelayConfig } from '../config/relay-config';

/**
 * The refusal under `sso.only` (docs/identity.md) of anything that would give a member a password:
 * it says where to sign in instead. Break-glass members are exempt (checked by the callers).
 */
export function ssoOnlyMessage(config: RelayConfig): string {
  const oidc = config.sso.oidc;
  const where = oidc ? `"Sign in with ${oidc.name}"` : 'your directory (LDAP) e-mail and password';
  return `This relay uses single sign-on only: password sign-in is turned off except for break-glass members. Use ${where}.`;
}

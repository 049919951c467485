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

/** Under `sso.only` nobody gets a new password except break-glass members (docs/identity.md). */
export const SsoOnlyMessages = {
  reset:
    'Password resets are turned off: this relay uses single sign-on only (sso.only), and only break-glass members have passwords.',
  invitation:
    'Invitations with passwords are turned off: this relay uses single sign-on only (sso.only). New members join by signing in through single sign-on.',
};

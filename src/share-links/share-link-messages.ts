/** Fixed messages of share links (docs/builds.md "Share links"). */
export const ShareLinkMessages = {
  notFound: 'Share link not found',
  expired: 'This share link has expired',
  revoked: 'This share link was revoked',
  buildDeleted: 'The build this link shared was deleted',
  limitReached: 'This share link reached its download limit',
  passwordNeeded: 'This share link needs its password: open it and enter the password',
  wrongPassword: 'Wrong password',
  expiryRange: 'expires_in_days must be an integer from 1 to 90',
  passwordLength: 'password must be a string of 1 to 200 characters',
  downloadLimitRange: 'download_limit must be an integer from 1 to 10000',
} as const;

/** Fixed messages of share links (docs/builds.md "Share links"). */
export const ShareLinkMessages = {
  notFound: 'Share link not found',
  expired: 'This share link has expired',
  revoked: 'This share link was revoked',
  buildDeleted: 'The build this link shared was deleted',
  expiryRange: 'expires_in_days must be an integer from 1 to 90',
} as const;

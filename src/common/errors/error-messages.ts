/** Messages the spec names word for word (spec §7), kept in one place so tests and code agree. */
export const ErrorMessages = {
  unauthorized: 'Unauthorized',
  forbidden: 'Forbidden',
  insufficientScope: 'Insufficient scope',
  viewerReadOnly: 'Viewers have read-only access',
  alreadyInitialized: 'Already initialized',
  initNotFromHost:
    'The first admin can only be created from the relay host. Run `svc admin init --email <you@example.com>` on the machine that runs the relay.',
  logsNotFromHost: 'Logs are only available on the relay host',
  tooManyAttempts: 'Too many attempts. Try again later.',
  internal: 'Internal server error',
  notFound: 'Not found',
  invalidCredentials: 'Invalid email or password',
  crossSite: 'Cross-site request refused',
  buildNotFound: 'Build not found',
  appNotFound: 'App not found',
  fileRequired: 'file required',
  invitationGone: 'Invitation expired or not found',
  deviceNotBooted: 'Device is not booted',
  agentOffline: 'Agent offline',
  screenshotTimeout: 'Screenshot timed out',
  uiTreeTimeout: 'UI tree timed out',
} as const;

import type { Connection } from './connection';

/** What the relay issues: `svc_pat_` and 32 random bytes in base64url (docs/auth.md). */
const WHOLE_PAT = /^svc_pat_[A-Za-z0-9_-]{43}$/;

/**
 * The line added to a 401. The relay answers every refused credential with the same `Unauthorized`
 * (spec §7) and must not tell a caller more; a revoked token's row is gone, so it could not tell
 * revoked from unknown anyway. The CLI can tell a token that is not whole from its shape, and
 * knows where the dashboard makes new ones.
 */
export function unauthorizedHint(connection: Connection & { source: NonNullable<Connection['source']> }): string {
  const where = `Make a new one at ${connection.baseUrl}/tokens (account menu → Access tokens).`;
  const from = connection.source.token;
  if (!WHOLE_PAT.test(connection.token)) {
    return `The token in ${from} is not a whole personal access token (svc_pat_ and 43 more characters): was it cut short or copied with extra characters? ${where}`;
  }
  return `The relay refused the token in ${from}: it is unknown, revoked or expired (the relay does not say which). ${where}`;
}

/** The message for a web page where the API was expected: the relay's address carried a page's path. */
export function notTheApiMessage(url: URL, connection: Connection): string {
  const variable = connection.source?.url ?? 'the relay URL';
  return `${url.origin}${url.pathname} answered with a web page, not the relay's API: set ${variable} to the relay's address alone, such as ${url.origin}`;
}

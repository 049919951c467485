import type { Request, RequestHandler } from 'express';
import { hostNamesThisMachine, isForwarded } from '../common/net/relay-host';

export const SIGN_IN_PAGE = '/signin';

/**
 * Where a browser that reached the relay under another host than the canonical origin's should go
 * instead: the same path and query there; null to stay. A sign-in begun on one origin cannot finish
 * on another (the flow cookie and the session cookie belong to the origin that set them).
 *
 * Hosts are compared, not schemes: a proxy or tunnel in front may end TLS without telling the
 * relay (no SVC_TRUST_PROXY), and sending the browser to the address it is already on would loop.
 * For the same reason a forwarded request whose host names this machine stays: the proxy rewrote
 * the Host to the relay's local address and passed on no X-Forwarded-Host, so the relay cannot tell
 * which name the browser used.
 */
export function canonicalLocation(req: Request, canonical: string | null): string | null {
  // Express 5: the X-Forwarded-Host of a trusted proxy, else Host (with its port).
  const host = req.host;
  if (!canonical || !host) return null;
  const target = new URL(canonical);
  if (sameHost(host, target)) return null;
  if (isForwarded(req) && hostNamesThisMachine(host, [])) return null;
  return `${target.origin}${req.originalUrl}`;
}

/**
 * GET /signin on another host goes to the canonical origin before anything is set there, so a
 * sign-in (and an SSO flow started from that page) happens where links and the OIDC redirect URI
 * lead. Except on the relay host itself, where the first Admin is created and the log is read.
 */
export function signInOnCanonicalOrigin(canonical: () => string | null, isFromRelayHost: (req: Request) => boolean): RequestHandler {
  return (req, res, next) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || req.path !== SIGN_IN_PAGE || isFromRelayHost(req)) return next();
    const location = canonicalLocation(req, canonical());
    return location ? res.redirect(302, location) : next();
  };
}

/** `name:port` against a URL's host, a default port (80, 443) counting as none. */
function sameHost(hostHeader: string, target: URL): boolean {
  let given: URL;
  try {
    given = new URL(`http://${hostHeader}`);
  } catch {
    return false;
  }
  const port = (p: string) => (p === '80' || p === '443' ? '' : p);
  return given.hostname.toLowerCase() === target.hostname.toLowerCase() && port(given.port) === port(target.port);
}

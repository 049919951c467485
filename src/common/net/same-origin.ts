import type { Request } from 'express';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Cross-site request forgery check for cookie-authenticated (and sign-in) requests that change
 * state. SameSite=Lax does not cover another service on the same host (ports are same-site), and
 * browsers send no Fetch-Metadata to plain-HTTP LAN addresses, so the Origin header carries the
 * defence. Requests without Origin and Sec-Fetch-Site (curl, CI) pass.
 */
export function isCrossSiteWrite(req: Request, trustedOrigins: (string | null)[]): boolean {
  if (SAFE_METHODS.has(req.method)) return false;
  const origin = req.headers.origin;
  if (origin === undefined) return req.headers['sec-fetch-site'] === 'cross-site';
  if (origin === 'null') return true;
  const own = `${req.protocol}://${req.headers.host ?? ''}`.toLowerCase();
  const allowed = [own, ...trustedOrigins.filter((o): o is string => !!o).map(originOf)];
  return !allowed.includes(origin.toLowerCase());
}

function originOf(url: string): string {
  try {
    return new URL(url).origin.toLowerCase();
  } catch {
    return '';
  }
}

import type { Request, Response } from 'express';
import { parse } from 'cookie';
import type { OidcFlow } from '../identity/oidc-sign-in.service';

const FLOW_COOKIE = 'svc_oidc';
const FLOW_PATH = '/api/v1/auth/oidc';
const FLOW_TTL_MS = 10 * 60_000;

/**
 * The flow's state, nonce and PKCE verifier live in this browser only (HttpOnly, Lax so the
 * provider's top-level redirect back carries it, scoped to the OIDC routes, 10 minutes): the callback
 * is accepted only in the browser that started it, on whichever instance it lands.
 */
export function setFlowCookie(req: Request, res: Response, flow: OidcFlow): void {
  const value = Buffer.from(JSON.stringify(flow)).toString('base64url');
  res.cookie(FLOW_COOKIE, value, { httpOnly: true, sameSite: 'lax', path: FLOW_PATH, maxAge: FLOW_TTL_MS, secure: req.secure });
}

export function takeFlowCookie(req: Request, res: Response): OidcFlow | null {
  res.clearCookie(FLOW_COOKIE, { httpOnly: true, sameSite: 'lax', path: FLOW_PATH, secure: req.secure });
  const raw = req.headers.cookie ? parse(req.headers.cookie)[FLOW_COOKIE] : undefined;
  if (!raw || raw.length > 2000) return null;
  try {
    const flow = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as Partial<OidcFlow>;
    const fields = [flow.state, flow.nonce, flow.codeVerifier, flow.next];
    return fields.every((f) => typeof f === 'string' && f.length > 0) ? (flow as OidcFlow) : null;
  } catch {
    return null;
  }
}

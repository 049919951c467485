import type { Request, Response } from 'express';
import type { IncomingMessage } from 'node:http';
import { parse } from 'cookie';
import { SESSION_TTL_MS } from './sessions.service';

export const SESSION_COOKIE = 'svc_token';

export function readSessionCookie(req: Pick<IncomingMessage, 'headers'>): string | null {
  const header = req.headers.cookie;
  if (!header) return null;
  return parse(header)[SESSION_COOKIE] ?? null;
}

/** HttpOnly, SameSite=Lax, Path=/, 7 days; Secure exactly when the request came over HTTPS. */
export function setSessionCookie(req: Request, res: Response, token: string): void {
  res.cookie(SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    maxAge: SESSION_TTL_MS,
    secure: req.secure,
  });
}

export function clearSessionCookie(req: Request, res: Response): void {
  res.clearCookie(SESSION_COOKIE, { httpOnly: true, sameSite: 'lax', path: '/', secure: req.secure });
}

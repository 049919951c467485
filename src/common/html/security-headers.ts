import type { ServerResponse } from 'node:http';

/**
 * The Content-Security-Policy of the pages the relay serves on its own origin (the dashboard, the
 * API docs). Only `style-src` differs between them: the dashboard allows its per-response nonce,
 * the Swagger page its own inline <style> blocks. `frame-ancestors 'none'`: never framed, since
 * both act with the session cookie.
 */
export function documentCsp(styleSrc: string): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    `style-src ${styleSrc}`,
    "img-src 'self' data: blob:",
    "media-src 'self' blob:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * Security headers of every page on the relay's origin: no framing (clickjacking of a signed-in
 * member), no MIME sniffing, no Referer (the invitation and reset pages carry a token in the URL),
 * and no opener shared with a page of another origin.
 */
export function setDocumentSecurityHeaders(res: ServerResponse, csp: string): void {
  res.setHeader('Content-Security-Policy', csp);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
}

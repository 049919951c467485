import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { documentCsp, setDocumentSecurityHeaders } from '../common/html/security-headers';
import { preferredCoding } from '../common/net/content-coding';

/**
 * The dashboard (web/, built by Vite into web/dist) served at the relay root:
 * - `/assets/*` are content-hashed: cached for a year, immutable;
 * - other files of the build (favicon…) are revalidated on every use;
 * - any other GET/HEAD that is not under /api/ or /uploads/ and has no file extension gets
 *   index.html, never cached, so client-side routes (/builds/12, /invite?token=…) load the app;
 * - everything else falls through to Nest, which keeps its JSON 404.
 * WebSocket upgrades never pass through Express, so their paths are unaffected.
 */
export const DASHBOARD_ASSET_PREFIX = '/assets/';

/**
 * index.html may carry this placeholder (Vite `html.cspNonce`); each response replaces it with a
 * fresh nonce that the CSP's style-src allows, so libraries that inject <style> elements (Radix's
 * scroll lock) can tag them without 'unsafe-inline'. Scripts never need it: script-src is 'self'.
 */
export const CSP_NONCE_PLACEHOLDER = '__SVC_CSP_NONCE__';

const YEAR_SECONDS = 365 * 24 * 60 * 60;

export function dashboardCsp(nonce: string): string {
  return documentCsp(`'self' 'nonce-${nonce}'`);
}

/**
 * The API, stored files, /metrics, the install and unsubscribe pages (server-rendered, so a phone
 * without an account loads no app) and the WebDriver hub (/wd/hub, /session: docs/device-tests.md):
 * never the dashboard's (neither a route nor a file of its build).
 */
function isServerPath(path: string): boolean {
  return /^\/(api|uploads|install|unsubscribe|scim|wd|session)(\/|$)/.test(path) || path === '/metrics';
}

/** True for paths the single-page app owns: not the API, not stored files, not /metrics, not a file name. */
export function isDashboardRoute(path: string): boolean {
  if (isServerPath(path)) return false;
  const lastSegment = path.slice(path.lastIndexOf('/') + 1);
  return !lastSegment.includes('.');
}

/** Files `vite build` writes a `.br` and a `.gz` copy beside (web/vite.config.mts, precompress). */
const PRECOMPRESSED = /\.(js|mjs|css|svg|json|txt|map|webmanifest)$/;
const VARIANT_SUFFIX = { br: '.br', gzip: '.gz' } as const;

export function serveDashboard(webDir: string): RequestHandler[] {
  const cacheFor = (res: Response) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    const url = (res.req as Request).path;
    res.setHeader(
      'Cache-Control',
      url.startsWith(DASHBOARD_ASSET_PREFIX) ? `public, max-age=${YEAR_SECONDS}, immutable` : 'no-cache',
    );
  };
  const staticOptions = { index: false, fallthrough: true, redirect: false } as const;
  const files = express.static(webDir, {
    ...staticOptions,
    setHeaders: (res, path) => {
      cacheFor(res);
      if (PRECOMPRESSED.test(path)) res.setHeader('Vary', 'Accept-Encoding');
    },
  });
  // The .br/.gz copy under the original's name and type. Ranges are off: a range of encoded bytes
  // is of no use to a browser, and one coding per answer keeps caches simple. `send` derives the
  // ETag from the copy's size and time, so each coding has its own.
  const encodedFiles = express.static(webDir, {
    ...staticOptions,
    acceptRanges: false,
    setHeaders: (res, path) => {
      cacheFor(res);
      res.setHeader('Vary', 'Accept-Encoding');
      res.setHeader('Content-Encoding', path.endsWith('.br') ? 'br' : 'gzip');
      res.type(extname(path.slice(0, path.lastIndexOf('.'))));
    },
  });
  const onlyFiles: RequestHandler = (req, res, next) => {
    // index.html is only ever served through the route below (with its headers), never as a file.
    // API calls skip the file lookup (a stat per request otherwise).
    if (req.path === '/index.html' || isServerPath(req.path) || isDashboardRoute(req.path)) return next();
    // The copies are served only in place of their original, never under their own names.
    if (/\.(br|gz)$/.test(req.path)) return next();
    const coding = PRECOMPRESSED.test(req.path) ? preferredCoding(req) : null;
    if (!coding) return files(req, res, next);
    const url = req.url;
    req.url = req.path + VARIANT_SUFFIX[coding];
    encodedFiles(req, res, (err?: unknown) => {
      req.url = url;
      // No copy (a file under the size the build compresses): the original.
      return err ? next(err) : files(req, res, next);
    });
  };
  return [onlyFiles, indexPage(join(webDir, 'index.html'))];
}

function indexPage(indexPath: string): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || !isDashboardRoute(req.path)) return next();
    readFile(indexPath, 'utf8').then(
      (html) => {
        const nonce = randomBytes(16).toString('base64');
        sendDocument(res, 200, html.replaceAll(CSP_NONCE_PLACEHOLDER, nonce), dashboardCsp(nonce));
      },
      (err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') return next(err);
        sendDocument(res, 503, NOT_BUILT_PAGE, dashboardCsp(randomBytes(16).toString('base64')));
      },
    );
  };
}

/**
 * A page the relay renders itself (the share links' install page), with the dashboard's headers and
 * CSP; `render` gets the nonce its one <style> element must carry.
 */
export function sendRenderedPage(res: Response, status: number, render: (styleNonce: string) => string): void {
  const nonce = randomBytes(16).toString('base64');
  sendDocument(res, status, render(nonce), dashboardCsp(nonce));
}

/** Security headers of every dashboard document (the token links open these pages too). */
function sendDocument(res: Response, status: number, html: string, csp: string): void {
  res.status(status);
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  setDocumentSecurityHeaders(res, csp);
  res.send(html);
}

const NOT_BUILT_PAGE =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>svc relay: dashboard not built</title></head>' +
  '<body><h1>The dashboard is not built</h1><p>The relay is running and its API answers (see ' +
  '<a href="/api/docs">/api/docs</a>), but the dashboard\'s files (web/dist) are missing. ' +
  '<code>npm start</code> builds them before starting the relay; <code>npm run build:web</code> builds them alone.</p>' +
  '</body></html>';

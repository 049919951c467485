import type { Response } from 'express';
import { createHash } from 'node:crypto';
import { escapeHtml } from './escape-html';

/**
 * The small pages the relay serves for links in e-mails (`/invite`, `/reset-password`) until the
 * dashboard replaces them. The token sits in the URL, so the page sends no Referer anywhere, is
 * never cached, cannot be framed, and runs only its own script (allowed by hash).
 */
export interface LinkPage {
  status: number;
  title: string;
  /** Trusted HTML (callers escape every value they insert). */
  body: string;
  /** Inline script, allowed by its hash in the CSP. */
  script?: string;
}

export function sendLinkPage(res: Response, page: LinkPage): void {
  const scriptHash = page.script ? `'sha256-${createHash('sha256').update(page.script).digest('base64')}'` : "'none'";
  res.status(page.status);
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader(
    'Content-Security-Policy',
    `default-src 'none'; script-src ${scriptHash}; style-src 'unsafe-inline'; connect-src 'self'; ` +
      "form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  );
  res.send(
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
      '<meta name="viewport" content="width=device-width, initial-scale=1">' +
      '<meta name="referrer" content="no-referrer">' +
      `<title>${escapeHtml(page.title)}</title>` +
      '<style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem}' +
      'label{display:block;margin:.8rem 0 .2rem}input{width:100%;padding:.4rem;box-sizing:border-box}' +
      'button{margin-top:1rem;padding:.5rem 1rem}#result{margin-top:1rem}</style></head><body>' +
      `<h1>${escapeHtml(page.title)}</h1>${page.body}` +
      (page.script ? `<script>${page.script}</script>` : '') +
      '</body></html>',
  );
}

/** Submits the page's form with fetch and shows the `{ error }` or a success message. */
export function formSubmitScript(options: { json: boolean; successHtml: string }): string {
  return `
document.getElementById('form').addEventListener('submit', async function (event) {
  event.preventDefault();
  var form = event.target, result = document.getElementById('result');
  var data = new FormData(form), body, headers = {};
  if (${options.json}) { body = JSON.stringify(Object.fromEntries(data)); headers['Content-Type'] = 'application/json'; }
  else { body = data; }
  result.textContent = '';
  try {
    var res = await fetch(form.action, { method: 'POST', body: body, headers: headers, credentials: 'same-origin' });
    if (res.ok) { form.hidden = true; result.innerHTML = ${JSON.stringify(options.successHtml)}; return; }
    var answer = await res.json().catch(function () { return {}; });
    result.textContent = answer.error || ('Request failed (' + res.status + ')');
  } catch (err) { result.textContent = 'The relay could not be reached.'; }
});`;
}

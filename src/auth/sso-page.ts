import { escapeHtml } from '../common/html/escape-html';

/**
 * The page a person sees when a sign-in through the identity provider is refused: they came from a
 * redirect, not from the dashboard's code, so the answer is a page with a way back, not JSON.
 */
export function ssoRefusalPage(message: string, styleNonce: string): string {
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex">' +
    '<link rel="icon" href="/favicon.svg" type="image/svg+xml"><title>Sign-in refused</title>' +
    `<style nonce="${escapeHtml(styleNonce)}">${STYLE}</style></head>` +
    `<body><main><h1>Sign-in refused</h1><p>${escapeHtml(message)}</p><p><a href="/signin">Back to the sign-in page</a></p></main></body></html>`
  );
}

const STYLE =
  'body{margin:0;font:16px/1.5 system-ui,sans-serif;background:#f6f7f9;color:#1a1d21}' +
  'main{max-width:520px;margin:0 auto;padding:48px 16px}h1{font-size:1.4rem}a{color:#3557d6}';

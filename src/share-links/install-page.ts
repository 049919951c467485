import { escapeHtml } from '../common/html/escape-html';
import { sqlDateTime } from '../common/time';
import type { SharedBuild } from './share-links.service';

/**
 * The page a share link opens on a phone: server-rendered, no script, one nonce'd <style>, every
 * value from the build escaped (app name, label and versions come from uploaded archives). The
 * icon is inlined as a data: URL, which the dashboard's CSP allows for images.
 */
export function installPage(shared: SharedBuild, styleNonce: string): string {
  const { build } = shared;
  const version = [build.versionName, build.buildNumber ? `(${build.buildNumber})` : null].filter(Boolean).join(' ');
  const ios = build.platform === 'ios';
  const rows: [string, string | null][] = [
    ['Platform', ios ? 'iOS simulator build' : 'Android APK'],
    ['Version', build.versionName],
    ['Build', build.buildNumber],
    ['Label', build.versionLabel],
    ['Size', fileSizeText(build.fileSize)],
    ['Uploaded', `${sqlDateTime(build.uploadedAt)} UTC`],
  ];
  const icon = shared.iconDataUrl
    ? `<img class="icon" src="${escapeHtml(shared.iconDataUrl)}" alt="" width="72" height="72">`
    : `<div class="icon letter" aria-hidden="true">${escapeHtml(Array.from(build.name)[0] ?? '?')}</div>`;
  const how = ios
    ? '<p class="note"><strong>This is an iOS simulator build.</strong> It installs on the iOS Simulator of a Mac ' +
      '(drag the file onto the simulator, or <code>xcrun simctl install booted &lt;app&gt;</code> after unpacking it), not on an iPhone or iPad.</p>'
    : '<p class="note">Open the downloaded file to install it. Android may ask you to allow installs from your browser first.</p>';
  const body =
    `<main><header>${icon}<div><h1>${escapeHtml(build.name)}</h1>` +
    (version ? `<p class="version">${escapeHtml(version)}</p>` : '') +
    `</div></header>` +
    `<dl>${rows
      .filter((row): row is [string, string] => !!row[1])
      .map(([term, value]) => `<dt>${term}</dt><dd>${escapeHtml(value)}</dd>`)
      .join('')}</dl>` +
    `<a class="button" href="${escapeHtml(shared.downloadPath)}" download>Download ${ios ? 'the simulator build' : 'the APK'} (${fileSizeText(build.fileSize)})</a>` +
    how +
    `<p class="expiry">This link works until ${escapeHtml(sqlDateTime(shared.expiresAt))} UTC.</p></main>`;
  return page(`Install ${build.name}${version ? ` ${version}` : ''}`, body, styleNonce);
}

/** The answer for a link that no longer works (410) or never did (404). */
export function unavailablePage(status: number, message: string, styleNonce: string): string {
  const heading = status === 410 ? 'This link no longer works' : 'This link is not valid';
  const hint = 'Ask whoever shared it for a new link.';
  return page(heading, `<main><h1>${heading}</h1><p>${escapeHtml(message)}.</p><p class="note">${hint}</p></main>`, styleNonce);
}

function page(title: string, body: string, styleNonce: string): string {
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    '<meta name="robots" content="noindex"><meta name="color-scheme" content="light dark">' +
    // The dashboard's icon (else the browser asks for /favicon.ico, a 404).
    '<link rel="icon" href="/favicon.svg" type="image/svg+xml">' +
    `<title>${escapeHtml(title)}</title><style nonce="${escapeHtml(styleNonce)}">${STYLE}</style></head>` +
    `<body>${body}</body></html>`
  );
}

export function fileSizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f6f7f9;color:#1a1d21}
main{max-width:480px;margin:0 auto;padding:24px 16px}
header{display:flex;gap:16px;align-items:center;margin-bottom:16px}
h1{font-size:1.4rem;margin:0;overflow-wrap:anywhere}
.version{margin:0;color:#5b6470}
.icon{width:72px;height:72px;border-radius:16px;flex:none;object-fit:cover}
.letter{display:flex;align-items:center;justify-content:center;background:#3557d6;color:#fff;font-size:2rem;font-weight:600}
dl{display:grid;grid-template-columns:max-content 1fr;gap:4px 16px;margin:0 0 24px}
dt{color:#5b6470}
dd{margin:0;overflow-wrap:anywhere}
.button{display:block;text-align:center;padding:14px 16px;border-radius:10px;background:#3557d6;color:#fff;font-weight:600;text-decoration:none}
.button:focus-visible{outline:3px solid #f0b400;outline-offset:2px}
.note,.expiry{color:#5b6470;font-size:.9rem}
code{font-size:.85rem;overflow-wrap:anywhere}
@media (prefers-color-scheme:dark){body{background:#14171b;color:#e6e8eb}.version,dt,.note,.expiry{color:#a3abb5}.button{background:#5b7cff}}
`;

import { escapeHtml } from '../common/html/escape-html';
import { isoWithMillis, sqlDateTime } from '../common/time';
import type { SharedBuild } from './share-links.service';

/** The one script of the install page, served by the relay (CSP script-src 'self'): times in the visitor's zone. */
export const LOCAL_TIMES_SCRIPT_PATH = '/install/script/local-times.js';

/**
 * Rewrites every `<time datetime>` in the visitor's own time zone and locale. Without it (scripts
 * off) the page still reads right: the server writes the times in UTC, saying so.
 */
// Fields spelled out: dateStyle/timeStyle cannot be combined with timeZoneName (a RangeError).
export const LOCAL_TIMES_SCRIPT = `for (const el of document.querySelectorAll('time[datetime]')) {
  const at = new Date(el.getAttribute('datetime'));
  if (!Number.isNaN(at.getTime())) el.textContent = at.toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit', timeZoneName: 'short' });
}
`;

type VisitorPlatform = 'android' | 'ios' | null;

/** The phone the page was opened on, from its User-Agent (iPadOS that claims to be a Mac reads as neither). */
export function visitorPlatform(userAgent: string | undefined): VisitorPlatform {
  if (!userAgent) return null;
  if (/Android/i.test(userAgent)) return 'android';
  if (/iPhone|iPad|iPod/i.test(userAgent)) return 'ios';
  return null;
}

/** A plain sentence when the visitor's phone cannot install this build; null when it can or we cannot tell. */
export function cannotInstallSentence(buildPlatform: string, visitor: VisitorPlatform): string | null {
  if (buildPlatform === 'ios' && visitor === 'android') {
    return 'This Android phone cannot install this build: it is an iOS simulator build, which runs only in the iOS Simulator on a Mac.';
  }
  if (buildPlatform === 'ios' && visitor === 'ios') {
    return 'This iPhone or iPad cannot install this build: it is an iOS simulator build, which runs only in the iOS Simulator on a Mac.';
  }
  if (buildPlatform === 'android' && visitor === 'ios') return 'This iPhone or iPad cannot install this build: it is an Android app (APK).';
  return null;
}

/**
 * The page a share link opens on a phone: server-rendered, one nonce'd <style>, one script file of
 * the relay's own (local times), every value from the build escaped (app name, label, versions and
 * changelog come from uploads). Icon and logo are inlined as data: URLs, which the CSP allows.
 * A link with a password shows the team and a password form until the password is given.
 */
export function installPage(shared: SharedBuild, styleNonce: string, options: { userAgent?: string; passwordError?: string } = {}): string {
  const { build } = shared;
  const version = [build.versionName, build.buildNumber ? `(${build.buildNumber})` : null].filter(Boolean).join(' ');
  // Locked: nothing of the build, its name included, before the password.
  if (shared.locked) return page('Password needed', `<main>${teamBar(shared)}${passwordForm(options.passwordError)}</main>`, styleNonce);
  const title = `Install ${build.name}${version ? ` ${version}` : ''}`;
  const ios = build.platform === 'ios';
  const rows: [string, string | null][] = [
    ['Platform', ios ? 'iOS simulator build' : 'Android APK'],
    ['Version', build.versionName],
    ['Build', build.buildNumber],
    ['Label', build.versionLabel],
    ['Size', fileSizeText(build.fileSize)],
  ];
  const icon = shared.iconDataUrl
    ? `<img class="icon" src="${escapeHtml(shared.iconDataUrl)}" alt="" width="72" height="72">`
    : `<div class="icon letter" aria-hidden="true">${escapeHtml(Array.from(build.name)[0] ?? '?')}</div>`;
  const how = ios
    ? '<p class="note"><strong>This is an iOS simulator build.</strong> It installs on the iOS Simulator of a Mac ' +
      '(drag the file onto the simulator, or <code>xcrun simctl install booted &lt;app&gt;</code> after unpacking it), not on an iPhone or iPad.</p>'
    : '<p class="note">Open the downloaded file to install it. Android may ask you to allow installs from your browser first.</p>';
  const cannot = cannotInstallSentence(build.platform, visitorPlatform(options.userAgent));
  const body =
    `<main>${teamBar(shared)}<header>${icon}<div><h1>${escapeHtml(build.name)}</h1>` +
    (version ? `<p class="version">${escapeHtml(version)}</p>` : '') +
    `</div></header>` +
    `<dl>${rows
      .filter((row): row is [string, string] => !!row[1])
      .map(([term, value]) => `<dt>${term}</dt><dd>${escapeHtml(value)}</dd>`)
      .join('')}<dt>Uploaded</dt><dd>${timeHtml(build.uploadedAt)}</dd></dl>` +
    (shared.changelog
      ? `<section class="changelog" aria-labelledby="what-to-test"><h2 id="what-to-test">What to test</h2><p>${escapeHtml(shared.changelog)}</p></section>`
      : '') +
    (cannot ? `<p class="cannot" role="note">${escapeHtml(cannot)}</p>` : '') +
    `<a class="button" href="${escapeHtml(shared.downloadPath)}" download>Download ${ios ? 'the simulator build' : 'the APK'} (${fileSizeText(build.fileSize)})</a>` +
    how +
    `<p class="expiry">${shared.expiresAt ? `This link works until ${timeHtml(shared.expiresAt)}.` : 'This link always opens the newest build.'}</p></main>`;
  return page(title, body, styleNonce, true);
}

/** The answer for a link that no longer works (410), never did (404), or was guessed at too often (429). */
export function unavailablePage(status: number, message: string, styleNonce: string): string {
  const heading = status === 410 ? 'This link no longer works' : status === 429 ? 'Too many attempts' : 'This link is not valid';
  const hint = status === 429 ? 'Wait a while, then try the password again.' : 'Ask whoever shared it for a new link.';
  return page(heading, `<main><h1>${heading}</h1><p>${escapeHtml(message.replace(/\.$/, ''))}.</p><p class="note">${hint}</p></main>`, styleNonce);
}

/** A one-sentence page in the install page's look (a tester's unsubscribe answer). */
export function messagePage(heading: string, message: string, styleNonce: string): string {
  return page(heading, `<main><h1>${escapeHtml(heading)}</h1><p>${escapeHtml(message)}</p></main>`, styleNonce);
}

function teamBar(shared: SharedBuild): string {
  const logo = shared.team.logoDataUrl ? `<img class="logo" src="${escapeHtml(shared.team.logoDataUrl)}" alt="" width="32" height="32">` : '';
  return `<p class="team">${logo}<span>Shared by ${escapeHtml(shared.team.name)}</span></p>`;
}

function passwordForm(error: string | undefined): string {
  // Posted to this same address; the relay answers with the unlocked page (docs/builds.md "Share links").
  return (
    '<h1>This link needs a password</h1><p class="note">Whoever shared it can tell you the password.</p>' +
    '<form method="post" class="unlock"><label for="password">Password</label>' +
    `<input id="password" name="password" type="password" autocomplete="off" required maxlength="200"${error ? ' aria-invalid="true" aria-describedby="password-error"' : ''}>` +
    (error ? `<p id="password-error" class="error" role="alert">${escapeHtml(error)}</p>` : '') +
    '<button class="button" type="submit">Continue</button></form>'
  );
}

/** In UTC from the server; the page's script rewrites it in the visitor's zone. */
function timeHtml(at: Date): string {
  return `<time datetime="${isoWithMillis(at)}">${escapeHtml(sqlDateTime(at))} UTC</time>`;
}

function page(title: string, body: string, styleNonce: string, localTimes = false): string {
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    '<meta name="robots" content="noindex"><meta name="color-scheme" content="light dark">' +
    // The dashboard's icon (else the browser asks for /favicon.ico, a 404).
    '<link rel="icon" href="/favicon.svg" type="image/svg+xml">' +
    `<title>${escapeHtml(title)}</title><style nonce="${escapeHtml(styleNonce)}">${STYLE}</style>` +
    (localTimes ? `<script src="${LOCAL_TIMES_SCRIPT_PATH}" defer></script>` : '') +
    `</head><body>${body}</body></html>`
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
h2{font-size:1rem;margin:0 0 4px}
.team{display:flex;gap:8px;align-items:center;margin:0 0 20px;color:#5b6470;font-weight:600;overflow-wrap:anywhere}
.logo{width:32px;height:32px;border-radius:8px;object-fit:cover;flex:none}
.version{margin:0;color:#5b6470}
.icon{width:72px;height:72px;border-radius:16px;flex:none;object-fit:cover}
.letter{display:flex;align-items:center;justify-content:center;background:#3557d6;color:#fff;font-size:2rem;font-weight:600}
dl{display:grid;grid-template-columns:max-content 1fr;gap:4px 16px;margin:0 0 24px}
dt{color:#5b6470}
dd{margin:0;overflow-wrap:anywhere}
.changelog{margin:0 0 20px;padding:12px 14px;border-radius:10px;background:#fff;border:1px solid #dfe3e8}
.changelog p{margin:0;white-space:pre-wrap;overflow-wrap:anywhere}
.cannot{margin:0 0 16px;padding:12px 14px;border-radius:10px;background:#fff4d6;color:#5a4300;font-weight:600}
.button{display:block;width:100%;text-align:center;padding:14px 16px;border:0;border-radius:10px;background:#3557d6;color:#fff;font:inherit;font-weight:600;text-decoration:none;cursor:pointer}
.button:focus-visible{outline:3px solid #f0b400;outline-offset:2px}
.unlock{display:flex;flex-direction:column;gap:8px;margin-top:16px}
.unlock input{font:inherit;padding:12px;border-radius:10px;border:1px solid #b8c0ca}
.error{margin:0;color:#b3261e;font-weight:600}
.note,.expiry{color:#5b6470;font-size:.9rem}
code{font-size:.85rem;overflow-wrap:anywhere}
@media (prefers-color-scheme:dark){body{background:#14171b;color:#e6e8eb}.version,dt,.note,.expiry,.team{color:#a3abb5}.button{background:#5b7cff}.changelog{background:#1d2126;border-color:#343a42}.cannot{background:#3d3000;color:#ffe3a3}.error{color:#ff8a80}.unlock input{background:#1d2126;color:inherit;border-color:#4a525c}}
`;

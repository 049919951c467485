/**
 * A comment attaches a recording by naming it: the Recording's own `url`, `/api/v1/recordings/<file>`
 * (the spec's Comment has no field for it, and a path in the body reads the same through the API,
 * a webhook or the CLI). The same address with this relay's origin in front counts too.
 */
const RECORDING_PATH = /(?:https?:\/\/[^\s/]+)?\/api\/v1\/recordings\/rec-[0-9a-f]{32}\.(?:webm|mkv|mp4|mov)\b/g;

/** What the composer puts into the body for a recording. */
export const recordingReference = (url: string) => `Recording: ${url}`;

/** The recordings a comment names, as same-origin paths, each once, in order. */
export function recordingPaths(body: string, origin: string): string[] {
  const paths: string[] = [];
  for (const [match] of body.matchAll(RECORDING_PATH)) {
    const path = ownPath(match, origin);
    if (path && !paths.includes(path)) paths.push(path);
  }
  return paths;
}

/** Text and recording paths of a piece of text, so the paths render as links. */
export function recordingParts(text: string, origin: string): ({ text: string } | { path: string; shown: string })[] {
  const parts: ({ text: string } | { path: string; shown: string })[] = [];
  let last = 0;
  for (const match of text.matchAll(RECORDING_PATH)) {
    const path = ownPath(match[0], origin);
    if (!path) continue;
    const start = match.index ?? 0;
    if (start > last) parts.push({ text: text.slice(last, start) });
    parts.push({ path, shown: match[0] });
    last = start + match[0].length;
  }
  if (last < text.length) parts.push({ text: text.slice(last) });
  return parts;
}

/** A path, or an address on this relay's origin; another site's address is no attachment. */
function ownPath(match: string, origin: string): string | null {
  if (match.startsWith('/')) return match;
  const url = new URL(match);
  return url.origin === origin ? url.pathname : null;
}

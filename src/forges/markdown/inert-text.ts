/**
 * Text from uploaders (app name, version, build number, branch, changelog, flag reasons) and
 * reviewers, made inert before it is posted to a forge (docs/robustness.md "Secrets in outbound
 * errors and uploader text"): it may mention nobody, link nowhere, load no image and run no HTML.
 */

/**
 * A zero-width space after `@`. GitHub, GitLab and Gitea read a mention only when a name character
 * follows the `@` at once, so `@\u200Borg/team` notifies nobody on any of them, yet reads the same.
 * (Renovate posts `@&#8203;` for the same reason; the character itself also holds in plain-text
 * fields, where an entity would show literally.)
 */
const ZERO_WIDTH_SPACE = '\u200B';

/** Every `@` followed by a zero-width space (once: neutralising twice changes nothing). */
export function neutraliseMentions(text: string): string {
  return text.replace(/@(?!\u200B)/g, `@${ZERO_WIDTH_SPACE}`);
}

/** A one-line Markdown value (a table cell, a heading): no pipes or line breaks, no emphasis, links, images or HTML, no mentions. */
export function inlineText(text: string): string {
  // `&` first: an entity (`&#64;org/team`, `&commat;`) would otherwise be decoded into a live mention.
  return neutraliseMentions(text.replace(/&/g, '&amp;').replace(/[|\\`*_<>[\]]/g, (c) => `\\${c}`).replace(/\s+/g, ' '));
}

/**
 * Free text as a fenced code block: nothing in a code block is a link, an image, HTML or a
 * reference on any of the three forges. The fence is one backtick longer than the longest run of
 * backticks inside (at least three), so no line of the text can close it.
 */
export function inertBlock(text: string): string {
  const body = neutraliseMentions(text.replace(/\r\n?/g, '\n'));
  const longest = Math.max(0, ...Array.from(body.matchAll(/`+/g), (run) => run[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}\n${body}\n${fence}`;
}

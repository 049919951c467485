/** A piece of a comment: plain text, or a web address to show as a link. */
export type TextPart = { text: string } | { url: string };

const URL_PATTERN = /\bhttps?:\/\/[^\s<>"']+/gi;
/** Punctuation that ends a sentence rather than the address ("see https://x.io/a."). */
const TRAILING = /[.,;:!?'")\]]+$/;

/**
 * Splits a comment into text and http(s) addresses. Only the parts are returned: the page renders
 * text as text (React escapes it), so a comment never injects markup, and only http(s) becomes a link.
 */
export function linkParts(body: string): TextPart[] {
  const parts: TextPart[] = [];
  let last = 0;
  for (const match of body.matchAll(URL_PATTERN)) {
    let url = match[0];
    // A closing parenthesis belongs to the address when it opened one inside it (Wikipedia-style).
    const trailing = url.match(TRAILING)?.[0] ?? '';
    let keep = trailing.length;
    while (keep > 0 && trailing[trailing.length - keep] === ')' && countOf(url.slice(0, url.length - keep), '(') > countOf(url.slice(0, url.length - keep), ')')) keep--;
    url = url.slice(0, url.length - keep);
    if (!/^https?:\/\/[^/]/i.test(url)) continue;
    const start = match.index ?? 0;
    if (start > last) parts.push({ text: body.slice(last, start) });
    parts.push({ url });
    last = start + url.length;
  }
  if (last < body.length) parts.push({ text: body.slice(last) });
  return parts;
}

function countOf(text: string, char: string): number {
  return text.split(char).length - 1;
}

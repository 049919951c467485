/**
 * What a webhook endpoint could echo back of ours, for redacting its errors before they are logged
 * or kept (docs/robustness.md "Secrets in outbound errors and uploader text"): its signing secret,
 * and the password of its URL, as written, decoded, and inside the Basic credential it is sent as.
 */
export function endpointCredentials(destination: { url: string; secret: string | null }): (string | null)[] {
  const url = URL.canParse(destination.url) ? new URL(destination.url) : null;
  if (!url?.password) return [destination.secret];
  const password = decoded(url.password);
  return [destination.secret, url.password, password, Buffer.from(`${decoded(url.username)}:${password}`).toString('base64')];
}

/** The sender decodes the same way; a malformed escape is kept as written (the attempt then fails on it). */
function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

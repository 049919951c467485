import type { IncomingMessage } from 'node:http';

/** The content codings the relay writes: the dashboard's precompressed files and compressed JSON. */
export type ContentCoding = 'br' | 'gzip';

/**
 * The coding to answer with, by the request's Accept-Encoding (RFC 9110 §12.5.3): brotli before
 * gzip whenever the client accepts both (it is smaller, and every browser that sends `br` decodes
 * it faster than it downloads gzip's extra bytes), null for identity. A coding is accepted when it
 * is listed, or covered by `*`, with a q above 0; `br;q=0` refuses it even under `*`.
 */
export function preferredCoding(req: IncomingMessage): ContentCoding | null {
  const header = req.headers['accept-encoding'];
  if (!header) return null;
  const weights = new Map<string, number>();
  for (const part of header.toLowerCase().split(',')) {
    const [name, ...params] = part.split(';');
    const q = params.map((p) => /^\s*q\s*=\s*([\d.]+)\s*$/.exec(p)).find(Boolean);
    weights.set(name.trim(), q ? Number(q[1]) : 1);
  }
  const accepted = (coding: ContentCoding) => (weights.get(coding) ?? weights.get('*') ?? 0) > 0;
  if (accepted('br')) return 'br';
  if (accepted('gzip')) return 'gzip';
  return null;
}

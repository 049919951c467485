/** A video container recognised by its first bytes, never by the client's name or part type. */
export interface VideoKind {
  mime: string;
  extension: string;
}

const EBML_HEADER_ID = 0x1a45dfa3;
const DOCTYPE_ID = 0x4282;

/**
 * WebM / Matroska (an EBML header whose DocType is "webm" or "matroska") and MP4 / QuickTime (an
 * `ftyp` box first; major brand "qt  " is QuickTime). Anything else is null. `head` is the first
 * bytes of the file (the multipart receiver keeps HEAD_BYTES, 4 KiB): the whole EBML header must be
 * in it, and a writer may spend 8 bytes on every element size (about 90 bytes for a usual header).
 */
export function detectVideo(head: Buffer): VideoKind | null {
  const docType = ebmlDocType(head);
  if (docType === 'webm') return { mime: 'video/webm', extension: 'webm' };
  if (docType === 'matroska') return { mime: 'video/x-matroska', extension: 'mkv' };
  if (head.length >= 12 && head.toString('latin1', 4, 8) === 'ftyp') {
    const brand = head.toString('latin1', 8, 12);
    return brand === 'qt  ' ? { mime: 'video/quicktime', extension: 'mov' } : { mime: 'video/mp4', extension: 'mp4' };
  }
  return null;
}

/** The DocType inside a leading EBML header element, or null. */
function ebmlDocType(buf: Buffer): string | null {
  const header = readVint(buf, 0, true);
  if (!header || header.value !== EBML_HEADER_ID) return null;
  const size = readVint(buf, header.length, false);
  if (!size) return null;
  let at = header.length + size.length;
  const end = Math.min(buf.length, at + size.value);
  while (at < end) {
    const id = readVint(buf, at, true);
    const len = id && readVint(buf, at + id.length, false);
    if (!id || !len) return null;
    const start = at + id.length + len.length;
    if (id.value === DOCTYPE_ID) {
      return start + len.value <= buf.length ? buf.toString('latin1', start, start + len.value).replace(/\0+$/, '') : null;
    }
    at = start + len.value;
  }
  return null;
}

/** EBML variable-length integer; element IDs keep their length marker, sizes drop it. */
function readVint(buf: Buffer, at: number, keepMarker: boolean): { value: number; length: number } | null {
  if (at >= buf.length) return null;
  const first = buf[at];
  if (first === 0) return null;
  const length = Math.clz32(first) - 23;
  if (length > 8 || at + length > buf.length) return null;
  let value = keepMarker ? first : first & (0xff >> length);
  for (let i = 1; i < length; i++) value = value * 256 + buf[at + i];
  return { value, length };
}

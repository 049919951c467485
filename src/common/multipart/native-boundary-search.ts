import type busboy from 'busboy';

/**
 * busboy's callback from its boundary search: `data[start, end)` is body bytes before the next
 * boundary (or before the end of what has arrived), `isMatch` says a boundary follows them, and
 * `isDataSafe` false means `data` is the search's own buffer, which busboy must copy.
 */
type SearchCallback = (isMatch: boolean, data: Buffer | undefined, start: number, end: number, isDataSafe: boolean) => void;

/** What busboy 1.6's Multipart calls on its boundary search (`streamsearch` 1.1's SBMH): `_bparser`. */
interface BoundarySearch {
  push(chunk: Buffer, pos?: number): number;
  destroy(): void;
}

/** The fields of streamsearch's SBMH this class takes over from (its state after busboy's first CRLF). */
interface StreamSearchState extends BoundarySearch {
  _needle: Buffer;
  _cb: SearchCallback;
  _lookbehind: Buffer;
  _lookbehindSize: number;
  matches: number;
  maxMatches: number;
}

/**
 * The boundary search busboy runs over every byte of a body, with the same callback contract as
 * `streamsearch` (busboy's own, Boyer-Moore-Horspool in JavaScript), on Node's native
 * `Buffer.indexOf`: on a 500 MB upload the JavaScript search was ~200 ms of the relay's main
 * thread, the largest cost nginx does not have (see docs/decisions.md#item-37).
 * Everything else (preamble, part headers, fields, limits, errors) stays busboy's.
 *
 * Same results as streamsearch: the leftmost non-overlapping matches, bytes before each match
 * handed on, and a chunk's tail that could begin a boundary held back until the next chunk shows
 * whether it does. Only how the bytes between matches are split into callbacks may differ, which
 * busboy does not depend on (native-boundary-search.spec.ts compares the two on random bodies).
 */
export class NativeBoundarySearch implements BoundarySearch {
  matches = 0;
  private readonly needle: Buffer;
  private readonly callback: SearchCallback;
  /** Bytes held back: a proper prefix of the needle that ended the last chunk. */
  private readonly held: Buffer;
  private heldSize = 0;
  /** Set by stop(): the rest of the chunk being searched is not handed on. */
  private stopped = false;

  constructor(needle: Buffer, callback: SearchCallback, held: Buffer = Buffer.alloc(0)) {
    this.needle = needle;
    this.callback = callback;
    this.held = Buffer.allocUnsafe(needle.length);
    held.copy(this.held);
    this.heldSize = held.length;
  }

  push(chunk: Buffer): number {
    const needleLength = this.needle.length;
    let start = this.heldSize ? this.resolveHeld(chunk) : 0;
    if (start < 0 || this.stopped) return chunk.length;
    for (;;) {
      const found = chunk.indexOf(this.needle, start);
      if (found < 0) break;
      this.matches++;
      if (found > start) this.callback(true, chunk, start, found, true);
      else this.callback(true, undefined, 0, 0, true);
      if (this.stopped) return chunk.length;
      start = found + needleLength;
    }
    const keep = this.prefixAtEnd(chunk, Math.max(start, chunk.length - needleLength + 1));
    if (keep > start) this.callback(false, chunk, start, keep, true);
    if (keep < chunk.length) {
      chunk.copy(this.held, 0, keep);
      this.heldSize = chunk.length - keep;
    }
    return chunk.length;
  }

  /** Hands nothing more on, from within a callback too (the parser is being destroyed). */
  stop(): void {
    this.stopped = true;
    this.heldSize = 0;
  }

  destroy(): void {
    if (this.heldSize) this.callback(false, this.held, 0, this.heldSize, false);
    this.matches = 0;
    this.heldSize = 0;
  }

  /**
   * The held bytes followed by `chunk`: a match that starts in the held bytes, or held bytes that,
   * with all of `chunk`, still only begin the needle. Returns where the search of `chunk` goes on,
   * or -1 when the whole chunk was taken into the held bytes.
   */
  private resolveHeld(chunk: Buffer): number {
    const needle = this.needle;
    const held = this.held;
    const heldSize = this.heldSize;
    const total = heldSize + chunk.length;
    for (let i = 0; i < heldSize; i++) {
      const compared = Math.min(needle.length, total - i);
      let same = true;
      for (let k = 0; k < compared && same; k++) {
        const at = i + k;
        same = (at < heldSize ? held[at] : chunk[at - heldSize]) === needle[k];
      }
      if (!same) continue;
      if (compared === needle.length) {
        this.matches++;
        this.heldSize = 0;
        if (i > 0) this.callback(true, held, 0, i, false);
        else this.callback(true, undefined, 0, 0, true);
        return i + needle.length - heldSize;
      }
      // Held bytes from i on plus the whole chunk are still only a beginning of the needle.
      if (i > 0) this.callback(false, held, 0, i, false);
      held.copy(held, 0, i, heldSize);
      chunk.copy(held, heldSize - i);
      this.heldSize = total - i;
      return -1;
    }
    this.callback(false, held, 0, heldSize, false);
    this.heldSize = 0;
    return 0;
  }

  /** The first position from `from` on where the rest of `chunk` is a beginning of the needle. */
  private prefixAtEnd(chunk: Buffer, from: number): number {
    const first = this.needle[0];
    for (let pos = from; pos < chunk.length; pos++) {
      if (chunk[pos] !== first) continue;
      if (chunk.compare(this.needle, 0, chunk.length - pos, pos) === 0) return pos;
    }
    return chunk.length;
  }
}

/**
 * Puts a NativeBoundarySearch in place of the JavaScript search in a busboy multipart parser,
 * carrying over what the old one holds (busboy writes a CRLF through it on construction). Returns
 * false, leaving busboy as it is, when the parser is not the shape this was written against
 * (busboy 1.6 with streamsearch 1.1); the spec fails then, so an upgrade is noticed.
 *
 * One of busboy's own behaviours is not kept: a part whose header block has not ended when a
 * delimiter arrives (`…filename=x\r\n\r\n--B\r\n--`: the blank line is the delimiter's CRLF) has
 * its headers finished by the bytes after the delimiter, and when those are the closing `--`,
 * busboy opens a file stream after the end of the form and never ends it: no 'close', no error,
 * and the request is never answered. Here the parser is destroyed with busboy's own
 * 'Malformed part header' instead, as it is when a body ends inside a header block.
 */
export function useNativeBoundarySearch(parser: busboy.Busboy): boolean {
  const host = parser as unknown as BusboyState;
  const old = host._bparser;
  if (
    !old ||
    !Buffer.isBuffer(old._needle) ||
    typeof old._cb !== 'function' ||
    !Buffer.isBuffer(old._lookbehind) ||
    typeof old._lookbehindSize !== 'number' ||
    old.maxMatches !== Infinity ||
    old._lookbehindSize >= old._needle.length ||
    host._complete !== false ||
    !('_fileStream' in host)
  ) {
    return false;
  }
  const busboyCallback = old._cb;
  const search = new NativeBoundarySearch(
    old._needle,
    (isMatch, data, start, end, isDataSafe) => {
      busboyCallback(isMatch, data, start, end, isDataSafe);
      if (host._complete && host._fileStream && !parser.destroyed) {
        search.stop();
        parser.destroy(new Error('Malformed part header'));
      }
    },
    old._lookbehind.subarray(0, old._lookbehindSize),
  );
  search.matches = old.matches ?? 0;
  host._bparser = search as unknown as StreamSearchState;
  return true;
}

/** The fields of busboy 1.6's Multipart read here. */
interface BusboyState {
  _bparser?: Partial<StreamSearchState>;
  /** Set when the closing delimiter has been read. */
  _complete?: boolean;
  /** The file part being read, null or undefined between parts. */
  _fileStream?: unknown;
}

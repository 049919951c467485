import type { Socket } from 'node:net';
import type { Writable } from 'node:stream';
import type { WebSocket } from 'ws';
import { FrameState, rotateMask, unmask } from './unmask';

/** Reads outside pooled payloads go into fresh slabs, this much at a time, never into memory handed out before. */
const SLAB_BYTES = 256 * 1024;
const READ_WINDOW = 16 * 1024;

/** What readIntoPayloads needs of a socket the HTTP server accepted (Node's net internals). */
interface UserBufferHandle {
  constructor: { name: string };
  useUserBuffer?(buffer: Buffer): void;
}

/**
 * Node's `onread` (a user-supplied read buffer) for a socket the HTTP server accepted, which
 * `net.connect`'s option cannot reach: while a pooled payload is being read, the socket reads
 * straight into that payload's buffer (up to its last byte, which goes through the Receiver so
 * that ws completes the frame itself); every other read goes into the next unused part of a slab
 * and on to the Receiver as ws's own 'data' handler would pass it. No buffer is ever read into
 * twice, so whatever the Receiver keeps of a read stays intact. Only for plain TCP sockets with
 * nothing buffered yet and the user-buffer fields Node 20 gives every net.Socket; otherwise the
 * socket keeps Node's reads (an ArrayBuffer per read) and this returns false.
 */
export function readIntoPayloads(ws: WebSocket, receiver: Writable, frame: FrameState): boolean {
  const socket = (ws as unknown as { _socket?: Socket })._socket;
  const handle = (socket as unknown as { _handle?: UserBufferHandle } | undefined)?._handle;
  if (!socket || !handle || handle.constructor.name !== 'TCP' || typeof handle.useUserBuffer !== 'function') return false;
  if (socket.destroyed || socket.readableLength > 0) return false;
  const fields = userBufferFields(socket);
  if (!fields) return false;
  let slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
  let used = 0;
  let direct: Buffer | null = null;
  const next = (): Buffer => {
    if (frame.dest && frame.left > 1) return (direct = frame.dest.subarray(frame.offset, frame.offset + frame.left - 1));
    direct = null;
    if (SLAB_BYTES - used < READ_WINDOW) {
      slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
      used = 0;
    }
    return slab.subarray(used, used + READ_WINDOW);
  };
  const onRead = (bytes: number, buffer: Buffer): boolean => {
    if (buffer === direct) {
      const read = buffer.subarray(0, bytes);
      if (frame.mask) unmask(read, rotateMask(frame));
      frame.left -= bytes;
      frame.offset += bytes;
      return true;
    }
    const read = buffer.subarray(0, bytes);
    used += bytes;
    if (receiver.destroyed) return true; // after an error ws drops its 'data' handler: the bytes go nowhere there either
    receiver.write(read);
    // As ws's socketOnData, but only when the Receiver really holds data back (a write of 16 kB or
    // more returns false even when it was handled at once); its 'drain' resumes the socket.
    if (receiver.writableLength > 0) socket.pause();
    return true;
  };
  const first = next();
  const own = socket as unknown as Record<symbol, unknown>;
  own[fields.buffer] = first;
  own[fields.callback] = onRead;
  own[fields.generator] = next;
  handle.useUserBuffer(first);
  return true;
}

/** The symbols under which net.Socket keeps its `onread` option (null when none was given). */
function userBufferFields(socket: Socket): { buffer: symbol; callback: symbol; generator: symbol } | null {
  const byName = new Map(Object.getOwnPropertySymbols(socket).map((symbol) => [symbol.description, symbol]));
  const buffer = byName.get('kBuffer');
  const callback = byName.get('kBufferCb');
  const generator = byName.get('kBufferGen');
  if (!buffer || !callback || !generator) return null;
  const own = socket as unknown as Record<symbol, unknown>;
  if (own[buffer] !== null || own[callback] !== null || own[generator] !== null) return null;
  return { buffer, callback, generator };
}

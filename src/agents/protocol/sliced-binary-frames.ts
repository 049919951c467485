import { createHash } from 'node:crypto';
import type { Writable } from 'node:stream';
import type { WebSocket } from 'ws';
import type { PayloadPool } from './payload-pool';
import { readIntoPayloads } from './payload-reads';
import { FrameState, rotateMask, unmask, unmaskInto } from './unmask';

/**
 * Binary frames of an agent socket handed on as slices of the socket's reads instead of one new
 * buffer per frame. `ws` waits for a frame's whole payload, copies its 64 kB reads into one fresh
 * buffer and unmasks that: a 1 MiB allocation and copy per screenshot, and those short-lived
 * ArrayBuffers drove most of the relay's garbage collection. Here each read is unmasked in place
 * (the mask rotated to the slice's offset in the frame) and pushed onto the message's fragments as
 * it arrives; with binaryType `fragments` the message is that list.
 *
 * Only the Receiver instance of the sockets passed in is changed, and only its `getData` for
 * uncompressed binary data frames with a payload: text, control frames, compression, empty frames
 * and every check before the payload (opcodes, RSV bits, mask bit, maxPayload in `haveLength`) stay
 * `ws`'s own. It relies on `ws` internals: the socket's Receiver class must be one whose methods
 * were read against this file (KNOWN_RECEIVERS, by the source of those methods), or the socket is
 * left alone and `sliceBinaryFrames` returns false. The relay's sockets come from the `ws` that
 * @nestjs/platform-ws loads (its own copy, 8.21.2, pinned in package-lock), not the top-level one.
 *
 * With a PayloadPool, large payloads (screenshots) are gathered into pooled buffers instead, which
 * the socket reads into directly (readIntoPayloads): no ArrayBuffer per read or per screenshot.
 */

/** The fingerprints (wsReceiverFingerprint) of the ws Receivers this file was checked against. */
const KNOWN_RECEIVERS = new Set([
  // ws 8.21.2 (@nestjs/platform-ws's copy, the relay's agent sockets)
  '91b119e47a65922d29f361f604df742f451119c721e0a296f80af600058b865b',
  // ws 8.23.0 (top level)
  '0648dca5d841fa62c06134932b01227a98a84462a921118ac9937ac4f61a1af9',
]);

const BINARY = 0x02;

/** The parts of ws's Receiver (lib/receiver.js) this file reads and drives. */
interface ReceiverInternals {
  _buffers: Buffer[];
  _bufferedBytes: number;
  _opcode: number;
  _compressed: boolean;
  _payloadLength: number;
  _masked: boolean;
  _mask: Buffer | undefined;
  _fragments: Buffer[];
  _totalPayloadLength: number;
  _messageLength: number;
  _maxFragments: number;
  _numFragments: number;
  _loop: boolean;
  getData(cb: (err?: Error) => void): void;
  dataMessage(cb: (err?: Error) => void): void;
  createError(ctor: ErrorConstructor, message: string, prefix: boolean, statusCode: number, code: string): Error;
}

const fingerprints = new WeakMap<object, string>();

/** sha256 of the sources of the Receiver methods the patched getData reproduces or relies on. */
export function wsReceiverFingerprint(receiverClass: { prototype: object }): string {
  let fingerprint = fingerprints.get(receiverClass);
  if (!fingerprint) {
    const proto = receiverClass.prototype as Record<string, unknown>;
    const sources = ['getData', 'dataMessage', 'haveLength', 'getMask', 'consume', 'startLoop', '_write'].map((name) => String(proto[name]));
    fingerprint = createHash('sha256').update(sources.join('\n')).digest('hex');
    fingerprints.set(receiverClass, fingerprint);
  }
  return fingerprint;
}

/** The socket's Receiver when it is one of the known ones with the expected fields; null otherwise. */
function knownReceiver(socket: WebSocket): ReceiverInternals | null {
  const receiver = (socket as unknown as { _receiver?: Partial<ReceiverInternals> })._receiver;
  if (!receiver || !KNOWN_RECEIVERS.has(wsReceiverFingerprint(receiver.constructor as { prototype: object }))) return null;
  const shaped =
    Array.isArray(receiver._buffers) &&
    Array.isArray(receiver._fragments) &&
    typeof receiver._bufferedBytes === 'number' &&
    typeof receiver._maxFragments === 'number' &&
    typeof receiver._numFragments === 'number';
  return shaped ? (receiver as ReceiverInternals) : null;
}

/**
 * Makes `socket`'s binary data frames arrive as slices of its reads; false (socket untouched) if `ws`
 * is not as expected. With a `pool`, a frame whose payload is at least `pool.minLength` is gathered
 * into one buffer of the pool instead (the message's fragment for that frame), and, where the socket
 * allows it (readIntoPayloads), the socket reads that payload straight into it.
 */
export function sliceBinaryFrames(socket: WebSocket, pool?: PayloadPool): boolean {
  const receiver = knownReceiver(socket);
  if (!receiver) return false;
  const wsGetData = receiver.getData;
  const frame: FrameState = { left: 0, offset: 0, dest: null, mask: null, rotated: Buffer.alloc(4) };

  receiver.getData = function getData(this: ReceiverInternals, cb: (err?: Error) => void): void {
    if (this._opcode !== BINARY || this._compressed || this._payloadLength === 0) return wsGetData.call(this, cb);
    if (frame.left === 0) {
      frame.left = this._payloadLength;
      frame.offset = 0;
      frame.dest = pool?.pools(frame.left) ? pool.acquire(frame.left) : null;
      const mask = this._masked ? this._mask! : null;
      frame.mask = mask !== null && (mask[0] | mask[1] | mask[2] | mask[3]) !== 0 ? mask : null;
    }
    while (frame.left > 0 && this._bufferedBytes > 0) {
      const read = this._buffers[0];
      let slice = read;
      if (read.length > frame.left) {
        slice = read.subarray(0, frame.left);
        this._buffers[0] = read.subarray(frame.left);
      } else {
        this._buffers.shift();
      }
      this._bufferedBytes -= slice.length;
      if (frame.dest) {
        if (frame.mask) unmaskInto(slice, rotateMask(frame), frame.dest, frame.offset, slice.length);
        else slice.copy(frame.dest, frame.offset);
      } else {
        if (frame.mask) unmask(slice, rotateMask(frame));
        this._fragments.push(slice);
      }
      frame.left -= slice.length;
      frame.offset += slice.length;
    }
    if (frame.left > 0) {
      this._loop = false; // wait for the next read, still in GET_DATA
      return;
    }
    // The frame is complete: the rest is ws's getData after its consume and unmask.
    if (frame.dest) this._fragments.push(frame.dest);
    frame.dest = frame.mask = null;
    this._mask = undefined;
    if (this._maxFragments > 0 && ++this._numFragments > this._maxFragments) {
      return cb(this.createError(RangeError, 'Too many message fragments', false, 1008, 'WS_ERR_TOO_MANY_BUFFERED_PARTS'));
    }
    this._messageLength = this._totalPayloadLength;
    this.dataMessage(cb);
  };
  if (pool) readIntoPayloads(socket, receiver as unknown as Writable, frame);
  return true;
}

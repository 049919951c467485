import { join } from 'node:path';
import type { Writable } from 'node:stream';
import type { WebSocket } from 'ws';
import { sha256Of } from '../packages';
import type { PayloadPool } from './payload-pool';
import { readIntoPayloads } from './payload-reads';
import { FrameState, rotateMask, unmask, unmaskInto } from './unmask';

/**
 * Binary frames handed on as slices of the socket's reads instead of one new buffer per frame.
 * `ws` waits for a frame's whole payload, copies its 64 kB reads into one fresh buffer and unmasks
 * that: a 1 MiB allocation and copy per screenshot, and those short-lived ArrayBuffers drove most
 * of the relay's garbage collection. Here each read is unmasked in place (the mask rotated to the
 * slice's offset in the frame) and pushed onto the message's fragments as it arrives; with
 * binaryType `fragments` the message is that list.
 *
 * Installed once, on the Receiver class of one `ws` copy (the relay's: the one @nestjs/platform-ws
 * loads), and only if that class's methods are the ones this file was read against (`expected`,
 * the piece's fingerprints). It changes only sockets whose binaryType is `fragments` (set through
 * ws's public setter: the agent gateway does), and of those only `getData` of uncompressed binary
 * data frames with a payload: text, control frames, compression, empty frames and every check
 * before the payload (opcodes, RSV bits, mask bit, maxPayload in `haveLength`) stay `ws`'s own.
 *
 * With a PayloadPool (setPayloadPool), large payloads (screenshots) are gathered into pooled
 * buffers instead, which the socket then reads into directly (readIntoPayloads).
 */

/** The parts of ws's Receiver (lib/receiver.js) this file reads and drives. */
interface ReceiverInternals extends Writable {
  _binaryType: string;
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
type GetData = ReceiverInternals['getData'];
type ReceiverClass = { prototype: object };

const BINARY = 0x02;
/** ws's own getData, kept on the patched prototype: installing twice is a no-op and the fingerprint stays ws's. */
const WS_GET_DATA = Symbol('ws getData before sliced binary frames');

/** Per socket (its Receiver): the binary frame being read, or null when the Receiver is not shaped as expected. */
interface SocketFrames {
  frame: FrameState;
  /** Whether readIntoPayloads was tried for this socket (once). */
  readsTried: boolean;
}
const sockets = new WeakMap<object, SocketFrames | null>();

/** Where large payloads go (null: slices of the reads). The relay's one, from AgentsModule, set at start-up. */
let payloads: PayloadPool | null = null;

export function setPayloadPool(pool: PayloadPool | null): void {
  payloads = pool;
}

/** sha256 of the sources of the Receiver methods the patched getData reproduces or relies on (ws's own, also once patched). */
export function wsReceiverFingerprint(receiverClass: ReceiverClass): string {
  const proto = receiverClass.prototype as Record<string | symbol, unknown>;
  const methods = ['getData', 'dataMessage', 'haveLength', 'getMask', 'consume', 'startLoop', '_write'];
  return sha256Of(methods.map((name) => String(name === 'getData' && proto[WS_GET_DATA] ? proto[WS_GET_DATA] : proto[name])));
}

/**
 * Patches the Receiver of the `ws` copy in `wsDir` (its public `Receiver` export) when its
 * fingerprint is one of `expected`; false (nothing changed) otherwise.
 */
export function installSlicedBinaryFrames(wsDir: string, expected: readonly string[]): boolean {
  const ws = require(wsDir) as { Receiver: ReceiverClass };
  const { kWebSocket } = require(join(wsDir, 'lib', 'constants.js')) as { kWebSocket: symbol };
  return patchReceiver(ws.Receiver, kWebSocket, expected);
}

export function patchReceiver(receiverClass: ReceiverClass, kWebSocket: symbol, expected: readonly string[]): boolean {
  const proto = receiverClass.prototype as ReceiverInternals & Record<symbol, GetData>;
  if (proto[WS_GET_DATA]) return true;
  if (!expected.includes(wsReceiverFingerprint(receiverClass))) return false;
  const wsGetData = proto.getData;
  proto[WS_GET_DATA] = wsGetData;

  proto.getData = function getData(this: ReceiverInternals, cb: (err?: Error) => void): void {
    if (this._binaryType !== 'fragments' || this._opcode !== BINARY || this._compressed || this._payloadLength === 0) return wsGetData.call(this, cb);
    let state = sockets.get(this);
    if (state === undefined) sockets.set(this, (state = shaped(this) ? { frame: newFrame(), readsTried: false } : null));
    if (state === null) return wsGetData.call(this, cb);
    const { frame } = state;
    if (frame.left === 0) {
      frame.left = this._payloadLength;
      frame.offset = 0;
      frame.dest = payloads?.pools(frame.left) ? payloads.acquire(frame.left) : null;
      const mask = this._masked ? this._mask! : null;
      frame.mask = mask !== null && (mask[0] | mask[1] | mask[2] | mask[3]) !== 0 ? mask : null;
    }
    takeBuffered(this, frame);
    if (frame.left > 0) {
      // The first pooled payload still to come: from now on the socket reads such payloads into their buffers.
      if (frame.dest && !state.readsTried) {
        state.readsTried = true;
        const ws = (this as unknown as Record<symbol, WebSocket | undefined>)[kWebSocket];
        if (ws) readIntoPayloads(ws, this, frame);
      }
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
  return true;
}

/** The current frame's part of what the Receiver holds: unmasked into its pooled buffer, or in place as fragments. */
function takeBuffered(receiver: ReceiverInternals, frame: FrameState): void {
  while (frame.left > 0 && receiver._bufferedBytes > 0) {
    const read = receiver._buffers[0];
    let slice = read;
    if (read.length > frame.left) {
      slice = read.subarray(0, frame.left);
      receiver._buffers[0] = read.subarray(frame.left);
    } else {
      receiver._buffers.shift();
    }
    receiver._bufferedBytes -= slice.length;
    if (frame.dest) {
      if (frame.mask) unmaskInto(slice, rotateMask(frame), frame.dest, frame.offset, slice.length);
      else slice.copy(frame.dest, frame.offset);
    } else {
      if (frame.mask) unmask(slice, rotateMask(frame));
      receiver._fragments.push(slice);
    }
    frame.left -= slice.length;
    frame.offset += slice.length;
  }
}

function newFrame(): FrameState {
  return { left: 0, offset: 0, dest: null, mask: null, rotated: Buffer.alloc(4) };
}

/** The fields the patched getData drives are there (the fingerprint covers methods, not the constructor). */
function shaped(receiver: ReceiverInternals): boolean {
  return (
    Array.isArray(receiver._buffers) &&
    Array.isArray(receiver._fragments) &&
    typeof receiver._bufferedBytes === 'number' &&
    typeof receiver._maxFragments === 'number' &&
    typeof receiver._numFragments === 'number'
  );
}

import type { AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import type * as Ws from 'ws';
import { pieces } from '.';
import { PayloadPool } from './payload-pool';
import { installSlicedBinaryFrames, patchReceiver, setPayloadPool } from './sliced-binary-frames';

/** The ws the relay's agent sockets come from (@nestjs/platform-ws's own copy), and the top-level one. */
const RELAY_WS = require.resolve('ws', { paths: [dirname(require.resolve('@nestjs/platform-ws'))] });
const TOP_WS = require.resolve('ws');
/** The fingerprints the piece was checked against. */
const EXPECTED = pieces.find((piece) => piece.name === 'ws binary frames as slices of the socket reads')!.expected;

/** Seeded, so a failure replays. */
function prng(seed: number): () => number {
  return () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x80000000;
  };
}

/** One client-to-server frame (RFC 6455 §5.2), masked with `mask`. */
function frame(opcode: number, fin: boolean, payload: Buffer, mask: number[]): Buffer {
  const length = payload.length;
  const head = length < 126 ? Buffer.alloc(2) : length < 65536 ? Buffer.alloc(4) : Buffer.alloc(10);
  head[0] = (fin ? 0x80 : 0) | opcode;
  if (length < 126) head[1] = 0x80 | length;
  else if (length < 65536) (head[1] = 0x80 | 126), head.writeUInt16BE(length, 2);
  else (head[1] = 0x80 | 127), head.writeBigUInt64BE(BigInt(length), 2);
  const masked = Buffer.from(payload.map((byte, i) => byte ^ mask[i & 3]));
  return Buffer.concat([head, Buffer.from(mask), masked]);
}

interface Received {
  messages: { data: Buffer[] | Buffer; isBinary: boolean }[];
  pings: Buffer[];
  /** The close code the server sent (as the client saw it). */
  closed: Promise<number>;
}

/**
 * A ws server (its Receiver patched once, as the 'app' phase patches the relay's) whose sockets are
 * marked as the agent gateway marks its own (binaryType 'fragments', unless `binaryType` says
 * otherwise), and a client writing raw bytes to it.
 */
async function connectTo(
  wsPath: string,
  options: { maxPayload?: number; binaryType?: 'fragments' | 'nodebuffer' } = {},
): Promise<{ write(bytes: Buffer): void; received: Received; serverSocket: object; stop(): Promise<void> }> {
  // False after a ws upgrade that changed the Receiver methods the patch relies on: read them
  // again against sliced-binary-frames.ts, then add the new fingerprint to the piece's `expected`.
  expect(installSlicedBinaryFrames(dirname(wsPath), EXPECTED)).toBe(true);
  const ws = require(wsPath) as typeof Ws;
  const server = new ws.WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: false, maxPayload: options.maxPayload });
  await new Promise((resolve) => server.once('listening', resolve));
  const accepted = new Promise<{ serverSocket: object; received: Received }>((resolve) =>
    server.once('connection', (socket) => {
      socket.binaryType = options.binaryType ?? 'fragments';
      const received: Received = { messages: [], pings: [], closed: clientClosed };
      socket.on('error', () => undefined); // the frames the tests break on are meant to fail
      socket.on('message', (data, isBinary) => received.messages.push({ data: data as Buffer[] | Buffer, isBinary }));
      socket.on('ping', (data) => received.pings.push(Buffer.from(data)));
      resolve({ serverSocket: (socket as unknown as { _socket: object })._socket, received });
    }),
  );
  const client = new ws.WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}`, { perMessageDeflate: false });
  client.on('error', () => undefined);
  const clientClosed = new Promise<number>((done) => client.once('close', done));
  await new Promise((resolve) => client.once('open', resolve));
  const { serverSocket, received } = await accepted;
  const raw = (client as unknown as { _socket: { write(bytes: Buffer): void } })._socket;
  return {
    write: (bytes) => raw.write(bytes),
    received,
    serverSocket,
    stop: async () => {
      client.terminate();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** The buffer a net.Socket reads into when given one (Node's `onread`), else null. */
function userReadBuffer(socket: object): unknown {
  const symbol = Object.getOwnPropertySymbols(socket).find((s) => s.description === 'kBuffer');
  return symbol ? (socket as Record<symbol, unknown>)[symbol] : null;
}

/** Writes `bytes` in pieces cut at `random` offsets, each in a read of its own (a pause between). */
async function writeInPieces(write: (bytes: Buffer) => void, bytes: Buffer, random: () => number, maxPiece: number): Promise<number> {
  let pieces = 0;
  for (let at = 0; at < bytes.length; pieces++) {
    const size = 1 + Math.floor(random() * maxPiece);
    write(bytes.subarray(at, at + size));
    at += size;
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  return pieces;
}

const until = async (test: () => boolean): Promise<void> => {
  for (let i = 0; !test(); i++) {
    if (i > 500) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

describe.each([
  ['the relay\'s ws (@nestjs/platform-ws\'s copy)', RELAY_WS, false],
  ['the top-level ws', TOP_WS, false],
  ['the relay\'s ws, large payloads pooled and read into directly', RELAY_WS, true],
  ['the top-level ws, large payloads pooled and read into directly', TOP_WS, true],
])('binary frames sliced on %s', (_name, path, pooled) => {
  // The pool's threshold well below the tests' frames, so most of them are pooled.
  beforeAll(() => setPayloadPool(pooled ? new PayloadPool(1000) : null));
  afterAll(() => setPayloadPool(null));
  const connect = (options: { maxPayload?: number } = {}) => connectTo(path, options);

  it('hands a binary message cut across many frames and reads on byte for byte, as slices, with pings between the frames', async () => {
    const random = prng(7);
    const message = Buffer.from(Array.from({ length: 300_000 }, () => Math.floor(random() * 256)));
    const sizes = [1, 3, 7, 125, 126, 127, 65_535, 65_536, 70_001];
    const masks = [[0x12, 0x34, 0x56, 0x78], [0, 0, 0, 0], [0xff, 0x01, 0x80, 0x7f]];
    const frames: Buffer[] = [];
    const pings: Buffer[] = [];
    let at = 0;
    for (let i = 0; at < message.length; i++) {
      const size = Math.min(sizes[i % sizes.length], message.length - at);
      const fin = at + size === message.length;
      frames.push(frame(i === 0 ? 0x02 : 0x00, fin, message.subarray(at, at + size), masks[i % masks.length]));
      if (!fin && i % 3 === 1) {
        pings.push(Buffer.from(`ping ${i}`));
        frames.push(frame(0x09, true, pings[pings.length - 1], masks[(i + 1) % masks.length]));
      }
      at += size;
    }
    const dataFrames = frames.length - pings.length;
    const { write, received, serverSocket, stop } = await connect();
    try {
      await writeInPieces(write, Buffer.concat(frames), random, 40_000);
      await until(() => received.messages.length === 1);
      const { data, isBinary } = received.messages[0];
      expect(isBinary).toBe(true);
      expect(Buffer.concat(data as Buffer[]).equals(message)).toBe(true);
      expect(received.pings).toEqual(pings);
      if (pooled) {
        // The socket reads pooled payloads straight into their buffers; each frame is one fragment.
        expect(userReadBuffer(serverSocket)).not.toBeNull();
        expect((data as Buffer[]).length).toBe(dataFrames);
      } else {
        // ws alone gives one fragment per frame; slices of the reads are more than that.
        expect((data as Buffer[]).length).toBeGreaterThan(dataFrames);
        expect(userReadBuffer(serverSocket)).toBeNull();
      }
    } finally {
      await stop();
    }
  });

  it('keeps back-to-back messages in one read apart, and a message in one frame', async () => {
    const a = Buffer.from('first binary message');
    const b = Buffer.alloc(70_000, 0xab);
    const { write, received, stop } = await connect();
    try {
      write(Buffer.concat([frame(0x02, true, a, [1, 2, 3, 4]), frame(0x02, true, b, [9, 8, 7, 6]), frame(0x01, true, Buffer.from('text'), [5, 5, 5, 5])]));
      await until(() => received.messages.length === 3);
      expect(Buffer.concat(received.messages[0].data as Buffer[])).toEqual(a);
      expect(Buffer.concat(received.messages[1].data as Buffer[])).toEqual(b);
      expect(received.messages[2]).toEqual({ data: Buffer.from('text'), isBinary: false });
    } finally {
      await stop();
    }
  });

  it('leaves text frames to ws: fragmented text is joined and UTF-8 checked', async () => {
    const text = Buffer.from('żółć — agent ✓');
    const { write, received, stop } = await connect();
    try {
      // "ż" cut between the two frames, a ping between them.
      write(Buffer.concat([frame(0x01, false, text.subarray(0, 1), [3, 1, 4, 1]), frame(0x09, true, Buffer.alloc(0), [0, 0, 0, 0]), frame(0x00, true, text.subarray(1), [2, 7, 1, 8])]));
      await until(() => received.messages.length === 1);
      expect(received.messages[0]).toEqual({ data: text, isBinary: false });
      write(frame(0x01, true, Buffer.from([0xc3, 0x28]), [1, 1, 1, 1]));
      expect(await received.closed).toBe(1007);
    } finally {
      await stop();
    }
  });

  it('keeps maxPayload across the fragments of a binary message', async () => {
    const { write, received, stop } = await connect({ maxPayload: 1000 });
    try {
      write(frame(0x02, false, Buffer.alloc(600), [1, 2, 3, 4]));
      write(frame(0x00, true, Buffer.alloc(600), [1, 2, 3, 4]));
      expect(await received.closed).toBe(1009);
      expect(received.messages).toEqual([]);
    } finally {
      await stop();
    }
  });

  it('closes on a close frame between the fragments of a binary message', async () => {
    const { write, received, stop } = await connect();
    try {
      const close = Buffer.alloc(2);
      close.writeUInt16BE(4001);
      write(Buffer.concat([frame(0x02, false, Buffer.alloc(100_000, 1), [1, 2, 3, 4]), frame(0x08, true, close, [4, 3, 2, 1])]));
      expect(await received.closed).toBe(4001);
      expect(received.messages).toEqual([]);
    } finally {
      await stop();
    }
  });

});

describe('binary frames with a payload pool', () => {
  const random = prng(11);
  const bytes = (n: number) => Buffer.from(Array.from({ length: n }, () => Math.floor(random() * 256)));

  it('reads a pooled payload straight into its buffer, never into memory handed out and not handed back, and reuses what is handed back', async () => {
    const pool = new PayloadPool(64 * 1024);
    setPayloadPool(pool);
    const { write, received, serverSocket, stop } = await connectTo(RELAY_WS);
    try {
      const first = bytes(200_000);
      const firstFrame = frame(0x02, true, first, [0x21, 0x43, 0x65, 0x87]);
      write(firstFrame.subarray(0, 50_000));
      // Mid-payload (from the socket's first pooled payload on) the socket's read buffer is the rest of
      // the payload's own buffer but its last byte.
      await until(() => ((userReadBuffer(serverSocket) as Buffer | null)?.length ?? 0) > 16 * 1024);
      const target = userReadBuffer(serverSocket) as Buffer;
      write(firstFrame.subarray(50_000));
      await until(() => received.messages.length === 1);
      const [held] = received.messages[0].data as Buffer[];
      expect(held.equals(first)).toBe(true);
      expect(held.buffer).toBe(target.buffer);
      expect(target.length).toBe(first.length - (50_000 - 14) - 1); // a 14-byte frame head (64-bit length, mask); the last byte left to ws

      // Not handed back: the next payload goes elsewhere and the first stays intact.
      const second = bytes(150_000);
      await writeInPieces(write, frame(0x02, true, second, [9, 9, 9, 9]), random, 30_000);
      await until(() => received.messages.length === 2);
      const [next] = received.messages[1].data as Buffer[];
      expect(next.equals(second)).toBe(true);
      expect(next.buffer).not.toBe(held.buffer);
      expect(held.equals(first)).toBe(true);

      // Handed back (twice: the second time does nothing): the next payload of that size reuses it.
      pool.release([held]);
      pool.release([held]);
      const third = bytes(180_000);
      await writeInPieces(write, frame(0x02, true, third, [1, 2, 3, 4]), random, 30_000);
      await until(() => received.messages.length === 3);
      const [reused] = received.messages[2].data as Buffer[];
      expect(reused.buffer).toBe(held.buffer);
      expect(reused.equals(third)).toBe(true);
      expect(next.equals(second)).toBe(true);
      const fourth = bytes(180_000);
      write(frame(0x02, true, fourth, [5, 6, 7, 8]));
      await until(() => received.messages.length === 4);
      expect((received.messages[3].data as Buffer[])[0].buffer).not.toBe(held.buffer);
      expect(reused.equals(third)).toBe(true);
    } finally {
      setPayloadPool(null);
      await stop();
    }
  });
});

describe('binary frames of sockets the gateway did not mark', () => {
  it('are left to ws on the patched Receiver: one joined Buffer per message, nothing pooled or read into', async () => {
    const pool = new PayloadPool(1000);
    setPayloadPool(pool);
    const { write, received, serverSocket, stop } = await connectTo(RELAY_WS, { binaryType: 'nodebuffer' });
    try {
      const message = Buffer.alloc(100_000, 0x5a);
      write(Buffer.concat([frame(0x02, false, message.subarray(0, 70_000), [1, 2, 3, 4]), frame(0x00, true, message.subarray(70_000), [4, 3, 2, 1])]));
      await until(() => received.messages.length === 1);
      expect(Buffer.isBuffer(received.messages[0].data)).toBe(true);
      expect((received.messages[0].data as Buffer).equals(message)).toBe(true);
      expect(userReadBuffer(serverSocket)).toBeNull();
      expect(pool.kept).toBe(0);
      pool.release([received.messages[0].data as Buffer]);
      expect(pool.kept).toBe(0); // not one of the pool's
    } finally {
      setPayloadPool(null);
      await stop();
    }
  });
});

describe('an unknown ws', () => {
  it('is left unpatched', () => {
    // A Receiver whose methods differ from the reviewed ones (as after a ws upgrade that changed them).
    class Receiver {
      _buffers = [];
      _fragments = [];
      getData(): void {}
    }
    const getData = Receiver.prototype.getData;
    expect(patchReceiver(Receiver, Symbol('websocket'), EXPECTED)).toBe(false);
    expect(Receiver.prototype.getData).toBe(getData);
  });
});

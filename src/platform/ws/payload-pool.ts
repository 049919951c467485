/**
 * Buffers for large binary frame payloads from agents (screenshots), handed back by whoever last
 * used them and handed out again. A fresh 1 MiB ArrayBuffer per screenshot is external memory that
 * V8 only reclaims by collecting: those buffers (and the 64 kB socket reads before them) drove
 * most of the relay's scavenges and full mark-compacts. A payload never handed back (an answer
 * that went to a device-session client, through Redis, or to an HTTP client that left mid-write)
 * is simply garbage, as before: handing back is an optimisation, never required.
 *
 * A buffer is in one of two states, out or free; `release` of a buffer that is not out does
 * nothing, so a payload handed back twice cannot end up with two owners.
 *
 * The relay's one pool is a provider of AgentsModule (agent sockets fill it through the ws piece,
 * which takes it at start-up; DeviceSessionsService hands screenshots back once written).
 */
export class PayloadPool {
  /** Free buffers by size class (a power of two). */
  private readonly free = new Map<number, Buffer[]>();
  /** The ArrayBuffers handed out and not handed back, with their size class. */
  private readonly out = new WeakMap<object, number>();
  private freeBytes = 0;

  /** @param maxFreeBytes what the pool keeps at most between bursts (the rest is left to GC) */
  constructor(
    readonly minLength = 64 * 1024,
    private readonly maxFreeBytes = 16 * 1024 * 1024,
  ) {}

  /** Whether a payload of `length` bytes is worth a pooled buffer (smaller ones stay socket-read slices). */
  pools(length: number): boolean {
    return length >= this.minLength;
  }

  /** A buffer of exactly `length` bytes, contents undefined, owned by the caller until released. */
  acquire(length: number): Buffer {
    const size = sizeClass(length);
    let buffer = this.free.get(size)?.pop();
    if (buffer) this.freeBytes -= size;
    else buffer = Buffer.allocUnsafeSlow(size);
    this.out.set(buffer.buffer, size);
    return buffer.subarray(0, length);
  }

  /** Hands back the pooled buffers among `chunks` (views of them); anything else is ignored. */
  release(chunks: readonly Buffer[]): void {
    for (const chunk of chunks) {
      const size = this.out.get(chunk.buffer);
      if (size === undefined) continue;
      this.out.delete(chunk.buffer);
      if (this.freeBytes + size > this.maxFreeBytes) continue;
      let list = this.free.get(size);
      if (!list) this.free.set(size, (list = []));
      list.push(Buffer.from(chunk.buffer, 0, size));
      this.freeBytes += size;
    }
  }

  /** Bytes kept in the free lists. */
  get kept(): number {
    return this.freeBytes;
  }
}

function sizeClass(length: number): number {
  return 2 ** Math.ceil(Math.log2(Math.max(length, 1)));
}

import { createHmac, timingSafeEqual } from 'node:crypto';

/** Bytes before the body: MAC (32), sending instance (16), its sequence number (8), its clock (8). */
export const SEAL_BYTES = 64;
const MAC_BYTES = 32;
/** How far a message's time may be from this instance's clock: clocks of instances must agree within it. */
export const FRESH_FOR_MS = 60_000;

/** Why a message was not opened, for the log line. */
export type SealRefusal = 'too short to be signed' | 'bad signature' | 'stale or from the future' | 'replayed';

/**
 * Signs what this instance publishes and checks what it receives, so that only instances holding
 * the cluster secret are heard (docs/scaling.md, "Redis is a trust boundary"). The MAC covers the
 * channel (a request cannot be moved to another channel or to another relay's prefix), the
 * sender, a sequence number, a timestamp and the body. A sender's messages reach every subscriber
 * in the order it published them (one connection, Redis keeps the order), so a message whose
 * sequence number is not above the last one seen from its sender is a replay; the timestamp bounds
 * replays to an instance that has not heard the sender yet.
 */
export class ClusterSeal {
  private readonly sender: Buffer;
  private sequence = 0n;
  /** Per sender: the highest sequence number accepted and when. Senders silent for a while are forgotten (their messages are stale by then). */
  private readonly lastSeen = new Map<string, { sequence: bigint; at: number }>();
  private lastPrune = 0;

  constructor(
    private readonly secret: Buffer,
    instanceId: string,
    private readonly now: () => number = Date.now,
  ) {
    this.sender = Buffer.from(instanceId.replace(/-/g, ''), 'hex');
    if (this.sender.length !== 16) throw new Error(`instance id ${instanceId} is not a UUID`);
  }

  /** The signed message: header, then the body's parts as they are. */
  seal(channel: string, body: readonly Buffer[]): Buffer {
    const header = Buffer.alloc(SEAL_BYTES);
    this.sender.copy(header, MAC_BYTES);
    header.writeBigUInt64BE(++this.sequence, MAC_BYTES + 16);
    header.writeBigUInt64BE(BigInt(this.now()), MAC_BYTES + 24);
    this.mac(channel, header, body).copy(header, 0);
    return Buffer.concat([header, ...body]);
  }

  /** The body of a message signed for this channel by an instance with the secret, fresh and not seen before; else why not. */
  open(channel: string, message: Buffer): { body: Buffer } | { refused: SealRefusal } {
    if (message.length < SEAL_BYTES) return { refused: 'too short to be signed' };
    const header = message.subarray(0, SEAL_BYTES);
    const body = message.subarray(SEAL_BYTES);
    if (!timingSafeEqual(this.mac(channel, header, [body]), header.subarray(0, MAC_BYTES))) return { refused: 'bad signature' };
    const now = this.now();
    if (Math.abs(Number(header.readBigUInt64BE(MAC_BYTES + 24)) - now) > FRESH_FOR_MS) return { refused: 'stale or from the future' };
    const sender = header.toString('hex', MAC_BYTES, MAC_BYTES + 16);
    const sequence = header.readBigUInt64BE(MAC_BYTES + 16);
    const seen = this.lastSeen.get(sender);
    if (seen && sequence <= seen.sequence) return { refused: 'replayed' };
    this.lastSeen.set(sender, { sequence, at: now });
    this.forgetSilentSenders(now);
    return { body };
  }

  private mac(channel: string, header: Buffer, body: readonly Buffer[]): Buffer {
    const hmac = createHmac('sha256', this.secret);
    const name = Buffer.from(channel, 'utf8');
    const length = Buffer.alloc(4);
    length.writeUInt32BE(name.length, 0);
    hmac.update(length).update(name).update(header.subarray(MAC_BYTES));
    for (const part of body) hmac.update(part);
    return hmac.digest();
  }

  /** A message is fresh for FRESH_FOR_MS either side of its time: past three windows of silence, nothing of the sender's can still pass. */
  private forgetSilentSenders(now: number): void {
    if (now - this.lastPrune < FRESH_FOR_MS) return;
    this.lastPrune = now;
    for (const [sender, seen] of this.lastSeen) if (now - seen.at > 3 * FRESH_FOR_MS) this.lastSeen.delete(sender);
  }
}

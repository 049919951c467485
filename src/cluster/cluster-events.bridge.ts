import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { ClusterBus } from './cluster-bus';
import { clusterSchema } from './cluster-schema';
import { EventReceipts } from './event-receipts';
import { remoteEventName, SHARED_EVENTS } from './on-every-instance.decorator';

const CHANNEL = 'events';
/** Where the instance `origin` hears that others handled an event it announced. */
const receiptsChannel = (origin: string) => `events:receipts:${origin}`;
/** Room for the envelope and an event's own fields, beside the largest payload a listener declared. */
const ENVELOPE_BYTES = 64 * 1024;

/** An event as published: events are small classes, so the payload is an object of their fields. */
const envelopeSchema = clusterSchema((z) =>
  z.object({
    origin: z.uuid(),
    name: z.string().refine((name) => SHARED_EVENTS.has(name), 'not an event shared between instances'),
    payload: z.record(z.string(), z.unknown()),
    /** Set when the origin waits for a receipt (announce()). */
    receipt: z.uuid().optional(),
  }),
);
type Envelope = z.infer<ReturnType<typeof envelopeSchema>>;
const receiptSchema = clusterSchema((z) => z.object({ id: z.uuid() }));

/**
 * Carries the events listened to with `@OnEventOnEveryInstance` to the other instances: each one
 * this instance emits is published; each one another instance published is emitted here under
 * `remote:<name>`, which only those listeners hear. Alone (no Redis) it does nothing.
 *
 * announce() emits an event and resolves once every other instance has handled it: a revocation's
 * answer then means the credential is refused everywhere, not in a moment (issue 42).
 */
@Injectable()
export class ClusterEventsBridge implements OnApplicationBootstrap {
  private readonly logger = new Logger('Cluster');
  private readonly receipts = new EventReceipts();
  /** Events being announced: announce() publishes them itself, with a receipt id. */
  private readonly announcing = new WeakSet<object>();

  constructor(
    private readonly bus: ClusterBus,
    private readonly events: EventEmitter2,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.bus.clustered) return;
    await this.bus.subscribeJson(CHANNEL, envelopeSchema, (envelope) => this.receive(envelope), {
      // The features say how big their events get (a device-session event carries what the agent
      // sent, up to the agent protocol's message limit): the cluster knows no feature's limits.
      maxBytes: Math.max(0, ...SHARED_EVENTS.values()) + ENVELOPE_BYTES,
      reviver: reviveDates,
    });
    await this.bus.subscribeJson(receiptsChannel(this.bus.instanceId), receiptSchema, ({ id }) => this.receipts.received(id));
    this.events.onAny((name, payload) => {
      if (typeof name !== 'string' || !SHARED_EVENTS.has(name) || this.announcing.has(payload)) return;
      this.publish({ origin: this.bus.instanceId, name, payload }).catch((err: Error) => this.failed(name, err));
    });
  }

  /**
   * Emits `event` here (its listeners run now) and on every other instance, resolving once each of
   * them has emitted it too, or after RECEIPTS_WITHIN_MS (an instance that died, Redis away: logged).
   */
  async announce(name: string, event: object): Promise<void> {
    if (!this.bus.clustered || !SHARED_EVENTS.has(name)) return void this.events.emit(name, event);
    this.announcing.add(event);
    try {
      this.events.emit(name, event);
    } finally {
      this.announcing.delete(event);
    }
    await this.publishAwaitingReceipts(name, event);
  }

  private async publishAwaitingReceipts(name: string, payload: object): Promise<void> {
    const id = randomUUID();
    try {
      const envelope: Envelope = { origin: this.bus.instanceId, name, payload: payload as Envelope['payload'], receipt: id };
      const missing = await this.receipts.collect(id, async () => {
        // Redis counts every subscriber the event reached: this instance's own, and any client that
        // listens without being a relay (an operator's monitor), which would never send a receipt.
        const [reached, relays] = await Promise.all([this.publish(envelope), this.otherInstancesListening()]);
        return Math.max(0, Math.min(reached - 1, relays));
      });
      if (missing === null) this.logger.warn(`Event ${name}: Redis did not take it in time; other instances may still hold what it revokes for a few seconds`);
      else if (missing) this.logger.warn(`Event ${name}: ${missing} instance(s) did not say they handled it in time`);
    } catch (err) {
      this.failed(name, err as Error);
    }
  }

  /**
   * The other instances that can send a receipt: each subscribes to its own receipts channel (after
   * the events channel), so the active channels under the prefix count them and nothing else.
   */
  private async otherInstancesListening(): Promise<number> {
    const pattern = `${globEscaped(this.bus.key(receiptsChannel('')))}*`;
    const channels = (await this.bus.redis.pubsub('CHANNELS', pattern)) as string[];
    return channels.filter((channel) => channel !== this.bus.key(receiptsChannel(this.bus.instanceId))).length;
  }

  private publish(envelope: Envelope): Promise<number> {
    return this.bus.publish(CHANNEL, encodeEvent(envelope));
  }

  private failed(name: string, err: Error): void {
    this.logger.error(`Event ${name} did not reach the other instances: ${err.message}`);
  }

  private receive(envelope: Envelope): void {
    if (envelope.origin === this.bus.instanceId) return;
    this.events.emit(remoteEventName(envelope.name), envelope.payload);
    if (!envelope.receipt) return;
    this.bus
      .publish(receiptsChannel(envelope.origin), JSON.stringify({ id: envelope.receipt }))
      .catch((err: Error) => this.logger.warn(`The receipt for event ${envelope.name} was not sent: ${err.message}`));
  }
}

/** `text` as a Redis glob pattern matching itself only. */
function globEscaped(text: string): string {
  return text.replace(/[\\*?[\]]/g, (c) => `\\${c}`);
}

/** JSON, with Dates kept as Dates (`{ "$date": ms }`): listeners format them (changedAt). */
export function encodeEvent(envelope: Envelope): string {
  return JSON.stringify(envelope, function (this: Record<string, unknown>, key, value: unknown) {
    const raw = this[key];
    return raw instanceof Date ? { $date: raw.getTime() } : value;
  });
}

/** The reviver that undoes encodeEvent's Dates. */
function reviveDates(_key: string, value: unknown): unknown {
  const date = (value as { $date?: unknown } | null)?.$date;
  return typeof date === 'number' && Object.keys(value as object).length === 1 ? new Date(date) : value;
}

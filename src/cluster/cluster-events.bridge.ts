import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { z } from 'zod';
import { ClusterBus } from './cluster-bus';
import { remoteEventName, SHARED_EVENTS } from './on-every-instance.decorator';

const CHANNEL = 'events';
/** Room for the envelope and an event's own fields, beside the largest payload a listener declared. */
const ENVELOPE_BYTES = 64 * 1024;

/** An event as published: events are small classes, so the payload is an object of their fields. */
const envelopeSchema = z.object({
  origin: z.uuid(),
  name: z.string().refine((name) => SHARED_EVENTS.has(name), 'not an event shared between instances'),
  payload: z.record(z.string(), z.unknown()),
});
type Envelope = z.infer<typeof envelopeSchema>;

/**
 * Carries the events listened to with `@OnEventOnEveryInstance` to the other instances: each one
 * this instance emits is published; each one another instance published is emitted here under
 * `remote:<name>`, which only those listeners hear. Alone (no Redis) it does nothing.
 */
@Injectable()
export class ClusterEventsBridge implements OnApplicationBootstrap {
  private readonly logger = new Logger('Cluster');

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
    this.events.onAny((name, payload) => {
      if (typeof name !== 'string' || !SHARED_EVENTS.has(name)) return;
      const envelope: Envelope = { origin: this.bus.instanceId, name, payload };
      this.bus
        .publish(CHANNEL, encodeEvent(envelope))
        .catch((err: Error) => this.logger.error(`Event ${name} did not reach the other instances: ${err.message}`));
    });
  }

  private receive(envelope: Envelope): void {
    if (envelope.origin === this.bus.instanceId) return;
    this.events.emit(remoteEventName(envelope.name), envelope.payload);
  }
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

import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { ClusterBus } from './cluster-bus';
import { remoteEventName, SHARED_EVENTS } from './on-every-instance.decorator';

const CHANNEL = 'events';

interface Envelope {
  origin: string;
  name: string;
  payload: unknown;
}

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
    await this.bus.subscribe(CHANNEL, (message) => this.receive(message));
    this.events.onAny((name, payload) => {
      if (typeof name !== 'string' || !SHARED_EVENTS.has(name)) return;
      const envelope: Envelope = { origin: this.bus.instanceId, name, payload };
      this.bus
        .publish(CHANNEL, encodeEvent(envelope))
        .catch((err: Error) => this.logger.error(`Event ${name} did not reach the other instances: ${err.message}`));
    });
  }

  private receive(message: Buffer): void {
    const envelope = decodeEvent(message);
    if (!envelope || envelope.origin === this.bus.instanceId || !SHARED_EVENTS.has(envelope.name)) return;
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

export function decodeEvent(message: Buffer): Envelope | null {
  try {
    return JSON.parse(message.toString(), (_key, value: unknown) => {
      const date = (value as { $date?: unknown } | null)?.$date;
      return typeof date === 'number' && Object.keys(value as object).length === 1 ? new Date(date) : value;
    }) as Envelope;
  } catch {
    return null;
  }
}

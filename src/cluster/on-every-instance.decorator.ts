import { applyDecorators } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';

/**
 * The domain events that other instances re-emit, each with the largest payload a listener said it
 * may carry (filled by the decorator below; 0: a small event of a few fields).
 */
export const SHARED_EVENTS = new Map<string, number>();

export interface SharedEventOptions {
  /** The event relays a message of its own feature (an agent's event): that message's size limit. */
  maxPayloadBytes?: number;
}

/** The name under which an event that happened on another instance is emitted here. */
export function remoteEventName(eventName: string): string {
  return `remote:${eventName}`;
}

/**
 * `@OnEvent(name)` for listeners whose effect is per instance: closing the sockets this instance
 * holds, writing to the event streams of its browsers. With Redis (docs/scaling.md) the event is
 * also delivered when it happened on another instance (ClusterEventsBridge). Listeners with a
 * cluster-wide effect (sending a webhook, deleting files) keep plain `@OnEvent`, so it happens once.
 * Remote payloads are the event's fields (Dates revived), not instances of its class.
 */
export function OnEventOnEveryInstance(eventName: string, options: SharedEventOptions = {}): MethodDecorator {
  SHARED_EVENTS.set(eventName, Math.max(SHARED_EVENTS.get(eventName) ?? 0, options.maxPayloadBytes ?? 0));
  return applyDecorators(OnEvent(eventName), OnEvent(remoteEventName(eventName)));
}

import { applyDecorators } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';

/** Names of the domain events that other instances re-emit (filled by the decorator below). */
export const SHARED_EVENTS = new Set<string>();

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
export function OnEventOnEveryInstance(eventName: string): MethodDecorator {
  SHARED_EVENTS.add(eventName);
  return applyDecorators(OnEvent(eventName), OnEvent(remoteEventName(eventName)));
}

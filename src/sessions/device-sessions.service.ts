import { HttpStatus, Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { AuditActor, auditEvent } from '../audit/audit-actor';
import { AUDIT_EVENT } from '../audit/audit-event';
import { AgentLocator, SessionPlace } from '../agents/agent-locator.service';
import { AgentRouter } from '../agents/agent-router.service';
import type { RpcOutcome } from '../agents/agent-rpc.service';
import { BinaryPayload, payloadLength } from '../agents/protocol/agent-protocol';
import { ErrorMessages } from '../common/errors/error-messages';
import { badRequest, conflict, notFound, HttpError } from '../common/errors/http-error';
import { RelayConfig } from '../config/relay-config';
import { PayloadPool } from '../platform/ws/payload-pool';
import { deviceActionDetails, isRecordedDeviceAction, outcomeOf, timelineDetail } from './device-action-audit';
import { DeviceActionEvent } from './events/device-action.event';
import { DeviceReservations } from './device-reservations.service';
import { DeviceListItem, SessionIdReader, toDeviceListItem } from './device.mapper';
import { toUiElements, UiElement } from '../agents/protocol/ui-tree';

export type ScreenshotFormat = 'png' | 'jpeg';
export const SESSION_NOT_FOUND = 'Session not found';
export const AGENT_BUSY = 'Agent is busy (it is not reading its connection); try again';
const IMAGE_TYPES = ['image/png', 'image/jpeg'];

export interface Screenshot {
  mime: string;
  /** The image as the agent's message brought it (fragments, not joined). */
  payload: BinaryPayload;
  length: number;
  /**
   * Once every byte of the answer is written, the agent sockets may read the next screenshot into
   * the same memory (AgentsModule's PayloadPool). Not calling it (a client gone mid-write) leaves it to GC.
   */
  written(): void;
}

/** `format` of GET /sessions/:id/screenshot: png (default) or jpeg; anything else 400. */
export function parseScreenshotFormat(value: unknown): ScreenshotFormat {
  if (value === undefined) return 'png';
  if (value === 'png' || value === 'jpeg') return value;
  throw badRequest('format must be png or jpeg');
}

/**
 * Device sessions seen from REST and from automation clients: finds the agent that owns a session,
 * asks it through the router (on this instance or, with Redis, the one holding its socket), and maps
 * what happened to the statuses of agent-protocol §2.4.
 */
@Injectable()
export class DeviceSessionsService {
  constructor(
    private readonly locator: AgentLocator,
    private readonly router: AgentRouter,
    private readonly config: RelayConfig,
    private readonly payloads: PayloadPool,
    private readonly events: EventEmitter2,
    private readonly reservations: DeviceReservations,
  ) {}

  async screenshot(sessionId: string, format: ScreenshotFormat): Promise<Screenshot> {
    const outcome = await this.call(await this.bootedSession(sessionId), 'screenshot', { sessionId, format });
    const ok = this.succeeded(outcome, ErrorMessages.screenshotTimeout);
    const mime = (ok.result as { mime?: unknown } | null)?.mime;
    const length = ok.payload ? payloadLength(ok.payload) : 0;
    if (!length || typeof mime !== 'string' || !IMAGE_TYPES.includes(mime)) {
      throw new HttpError(HttpStatus.BAD_GATEWAY, 'Agent returned no image');
    }
    const payload = ok.payload!;
    return { mime, payload, length, written: () => this.payloads.release(payload) };
  }

  async uiTree(sessionId: string): Promise<{ elements: UiElement[] }> {
    const outcome = await this.call(await this.bootedSession(sessionId), 'ui_tree', { sessionId });
    const elements = toUiElements(this.succeeded(outcome, ErrorMessages.uiTreeTimeout).result);
    if (!elements) throw new HttpError(HttpStatus.BAD_GATEWAY, 'Agent returned no UI tree');
    return { elements };
  }

  /**
   * Every known device, ordered by agent name, then device name, then session id (case-insensitively);
   * a holder's WebDriver session id only for `reader` when it is an Admin or the holder.
   */
  async devices(reader: SessionIdReader): Promise<DeviceListItem[]> {
    const places = await this.locator.allDevices();
    const holders = await this.reservations.holdersOf(places.map((place) => place.device.sessionId));
    return places
      .map((place) => toDeviceListItem(place, holders.get(place.device.sessionId), reader))
      .sort((a, b) => byText(a.agent, b.agent) || byText(a.name, b.name) || byText(a.session_id, b.session_id));
  }

  /** Where a session lives now (null: no agent ever listed it). */
  locate(sessionId: string): Promise<SessionPlace | null> {
    return this.locator.locate(sessionId);
  }

  /**
   * Forwards any method for a session (§3) to its owning agent, wherever it is; the agent decides
   * what it supports. Everything but looking (screenshot, UI tree) is recorded with how it ended.
   */
  async forward(sessionId: string, method: string, params: Record<string, unknown>, actor: AuditActor): Promise<RpcOutcome> {
    const requestedAt = Date.now();
    const place = await this.locator.locate(sessionId);
    const outcome: RpcOutcome = place
      ? await this.router.call(place, method, { ...params, sessionId }, this.timeoutFor(method))
      : { kind: 'offline' };
    if (isRecordedDeviceAction(method)) {
      const target = `session:${sessionId.slice(0, 180)}`;
      const action = /^[a-z0-9_]{1,48}$/i.test(method) ? method : 'other';
      this.events.emit(AUDIT_EVENT, auditEvent(actor, `device.${action}`, target, deviceActionDetails(method, params, outcome)));
      this.events.emit(
        DeviceActionEvent.eventName,
        new DeviceActionEvent(sessionId, action, timelineDetail(params), outcomeOf(outcome), actor.actorLabel, actor.via, requestedAt),
      );
    }
    return outcome;
  }

  private timeoutFor(method: string): number {
    if (method === 'screenshot') return this.config.agents.screenshotTimeoutMs;
    if (method === 'install_build') return this.config.agents.installTimeoutMs;
    if (method === 'ui_tree') return this.config.agents.uiTreeTimeoutMs;
    return this.config.agents.requestTimeoutMs;
  }

  /** 404 unknown, 409 last known shut down, 502 owner not connected. */
  async bootedSession(sessionId: string): Promise<SessionPlace> {
    const place = await this.locator.locate(sessionId);
    if (!place) throw notFound(SESSION_NOT_FOUND);
    if (place.device.state !== 'booted') throw conflict(ErrorMessages.deviceNotBooted);
    if (!isOnline(place)) throw new HttpError(HttpStatus.BAD_GATEWAY, ErrorMessages.agentOffline);
    return place;
  }

  private call(place: SessionPlace, method: 'screenshot' | 'ui_tree', params: Record<string, unknown>) {
    return this.router.call(place, method, params, this.timeoutFor(method));
  }

  private succeeded(outcome: RpcOutcome, timeoutMessage: string): Extract<RpcOutcome, { kind: 'ok' }> {
    switch (outcome.kind) {
      case 'ok':
        return outcome;
      case 'timeout':
        throw new HttpError(HttpStatus.GATEWAY_TIMEOUT, timeoutMessage);
      case 'offline':
        throw new HttpError(HttpStatus.BAD_GATEWAY, ErrorMessages.agentOffline);
      case 'busy':
        throw new HttpError(HttpStatus.SERVICE_UNAVAILABLE, AGENT_BUSY);
      case 'error':
        if (outcome.code === 'not_found') throw notFound(SESSION_NOT_FOUND);
        if (outcome.code === 'not_booted') throw conflict(ErrorMessages.deviceNotBooted);
        throw new HttpError(HttpStatus.BAD_GATEWAY, outcome.message.trim() || ErrorMessages.agentOffline);
    }
  }
}

/** Its agent's socket is open here, or another instance holds it. */
export function isOnline(place: SessionPlace): boolean {
  return place.connection ? place.connection.open : place.instanceId !== null;
}

/** Case-insensitive, as people read a list ("iPad" before "Pixel"). */
const byText = (a: string, b: string) => a.localeCompare(b, 'en', { sensitivity: 'base' }) || (a < b ? -1 : a > b ? 1 : 0);

import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { randomUUID } from 'node:crypto';
import { AgentDirectory } from '../../agents/agent-directory.service';
import { AgentLocator, SessionPlace } from '../../agents/agent-locator.service';
import { AgentRouter } from '../../agents/agent-router.service';
import type { RpcOutcome } from '../../agents/agent-rpc.service';
import { AgentOfflineEvent } from '../../agents/events/agent-offline.event';
import { ClusterBus } from '../../cluster/cluster-bus';
import { OnEventOnEveryInstance } from '../../cluster/on-every-instance.decorator';
import type { Principal } from '../../common/auth/principal';
import { RelayConfig } from '../../config/relay-config';
import { DeviceReservations } from '../../sessions/device-reservations.service';
import { isOnline } from '../../sessions/device-sessions.service';
import { BuildUnderTest, HubBuilds } from './hub-builds';
import { HubRequest, readHubRequest } from './capabilities';
import { DeviceQueue, Waiter } from './device-queue';
import { ClientVerdict, EndReason, HubSession } from './hub-session';
import { HubCommandEvent, HubSessionClosingEvent, HubSessionEndedEvent, HubSessionMarkedEvent, HubSessionStartedEvent } from './hub-session.events';
import { invalidSessionId, sessionNotCreated, W3CError } from './w3c-error';

export interface WebDriverAnswer {
  status: number;
  body: unknown;
}

/** How often the queue looks again for devices that came online (a device freed here wakes it at once). */
const QUEUE_RECHECK_MS = 1000;
/** How often sessions whose agent is on another instance check that the instance still runs. */
const INSTANCE_CHECK_MS = 2000;
/** How long ending a session waits for Appium to delete its own before the device is freed anyway. */
const END_DELETE_TIMEOUT_MS = 5000;
/** Ended sessions remembered to tell a late command why (not forever: a few per device is plenty). */
const ENDED_KEPT = 500;

/**
 * The WebDriver hub's sessions (docs/device-tests.md): takes a free matching device (or waits in
 * the queue), installs the build through the existing install path, opens the Appium session on
 * the device's agent, forwards each command through the agent's socket and returns Appium's
 * answer as it came; ends sessions that go quiet, whose agent goes away, or that an Admin ends, and
 * frees their devices. The sessions are in memory: a restart of the relay ends every session (the
 * runs' rows of a killed relay are ended at the next start-up: AbandonedRunSessions).
 */
@Injectable()
export class HubSessionsService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('WebDriverHub');
  private readonly sessions = new Map<string, HubSession>();
  private readonly ended = new Map<string, EndReason>();
  private readonly queue = new DeviceQueue<SessionPlace>();
  private recheck: NodeJS.Timeout | null = null;
  private instanceCheck: NodeJS.Timeout | null = null;

  constructor(
    private readonly locator: AgentLocator,
    private readonly directory: AgentDirectory,
    private readonly router: AgentRouter,
    private readonly reservations: DeviceReservations,
    private readonly builds: HubBuilds,
    private readonly config: RelayConfig,
    private readonly events: EventEmitter2,
    private readonly bus: ClusterBus,
  ) {}

  onModuleInit(): void {
    if (!this.bus.clustered) return;
    this.instanceCheck = setInterval(() => void this.endSessionsOfLostInstances(), INSTANCE_CHECK_MS);
    this.instanceCheck.unref?.();
  }

  /**
   * Sessions whose agent is connected to another instance end when that instance is lost (its
   * presence lapsed: it died, or lost Redis); its AgentOfflineEvent will never come.
   */
  async endSessionsOfLostInstances(): Promise<void> {
    const remote = [...this.sessions.values()].filter((s) => !s.place.connection && s.place.instanceId && s.place.instanceId !== this.bus.instanceId);
    for (const session of remote) {
      try {
        if (!(await this.bus.alive(session.place.instanceId!))) await this.end(session.id, 'agent offline');
      } catch (err) {
        this.logger.warn(`Checking the instance of session ${session.id}'s agent failed: ${(err as Error).message}`);
      }
    }
  }

  /** POST /session. `gone` fires when the client stops waiting (its connection closed). */
  async create(principal: Principal, body: unknown, gone: AbortSignal): Promise<WebDriverAnswer> {
    const request = readHubRequest(body);
    const build = request.build ? await this.builds.resolve(request.build, request.platform) : null;
    const platform = request.platform ?? build?.platform ?? null;
    const provisional = `pending-${randomUUID()}`;
    const member = principal.displayName || principal.email;
    const place = await this.acquire({ ...request, platform }, principal.userId, gone, provisional, (p) =>
      this.reservations.reserve(p.device.sessionId, {
        hubSessionId: provisional,
        userId: principal.userId,
        member,
        buildId: build?.id ?? null,
        runName: request.runName,
        since: new Date(),
      }),
    );
    const release = () => this.free(place, provisional);
    try {
      if (build) await this.builds.install(place, build);
      const outcome = await this.router.call(
        place,
        'webdriver',
        { sessionId: place.device.sessionId, method: 'POST', path: '/session', body, app: build ? appOf(build) : undefined },
        this.config.agents.installTimeoutMs,
      );
      const answer = this.answerOf(outcome, 'session not created');
      const id = (answer.body as { value?: { sessionId?: unknown } } | null)?.value?.sessionId;
      if (answer.status !== 200 || typeof id !== 'string') {
        release();
        return answer;
      }
      await this.reservations.rename(place.device.sessionId, provisional, id);
      const session: HubSession = {
        id,
        userId: principal.userId,
        member,
        place,
        buildId: build?.id ?? null,
        runName: request.runName,
        startedAt: new Date(),
        newCommandTimeoutMs: request.newCommandTimeoutMs,
        idleTimer: null,
        verdict: null,
        busy: 0,
      };
      this.sessions.set(id, session);
      this.armIdle(session);
      this.logger.log(`Session ${id} of ${member} on ${place.device.sessionId} (agent ${place.agentName})${build ? ` with build ${build.id}` : ''}`);
      // Awaited: the session's row in its run exists before its client holds the id, so a relay
      // killed right after the answer still leaves a session another instance (or its restart) ends.
      await this.events.emitAsync(HubSessionStartedEvent.eventName, new HubSessionStartedEvent(id, place.device.sessionId, session.buildId, session.runName, principal.userId));
      if (gone.aborted) void this.end(id, 'deleted');
      return answer;
    } catch (err) {
      release();
      throw err;
    }
  }

  /**
   * Any command of a session, told to its evidence (HubCommandEvent: the command timeline) whatever came of it.
   * `gone` fires when the client's connection closes before its answer: a client that vanished
   * mid-command (killed, or given up) ends the session at once instead of after newCommandTimeout.
   */
  async command(id: string, method: 'GET' | 'POST' | 'DELETE', path: string, body: unknown, gone?: AbortSignal): Promise<WebDriverAnswer> {
    const at = Date.now();
    const told = (answer: WebDriverAnswer | null, failure: HubCommandEvent['failure']) =>
      this.events.emit(HubCommandEvent.eventName, new HubCommandEvent(id, method, path, body, at, Date.now() - at, answer, failure));
    try {
      const answer = await this.forward(id, method, path, body, gone);
      told(answer, null);
      return answer;
    } catch (err) {
      if (err instanceof W3CError) told(null, { code: err.code, message: String(err.getResponse()), status: err.getStatus() });
      throw err;
    }
  }

  /** A command forwarded to its agent's Appium, the answer as Appium gave it. */
  private async forward(id: string, method: 'GET' | 'POST' | 'DELETE', path: string, body: unknown, gone?: AbortSignal): Promise<WebDriverAnswer> {
    const session = this.sessionFor(id);
    const verdict = method === 'POST' && path === `/session/${id}/execute/sync` ? clientVerdictOf(body) : undefined;
    if (verdict !== undefined) {
      session.verdict = verdict;
      this.armIdle(session);
      await this.events.emitAsync(HubSessionMarkedEvent.eventName, new HubSessionMarkedEvent(id, session.buildId, verdict)).catch(() => undefined);
      return { status: 200, body: { value: null } };
    }
    session.busy++;
    this.disarmIdle(session);
    const vanished = () => void this.end(id, 'client gone');
    gone?.addEventListener('abort', vanished, { once: true });
    try {
      if (method === 'DELETE' && path === `/session/${id}`) await this.closing(session);
      const outcome = await this.router.call(
        session.place,
        'webdriver',
        { sessionId: session.place.device.sessionId, method, path, body: method === 'GET' || method === 'DELETE' ? undefined : body },
        Math.max(this.config.agents.requestTimeoutMs, 1000),
      );
      if (outcome.kind === 'offline' && this.sessions.has(id)) await this.end(id, 'agent offline');
      return this.answerOf(outcome, 'unknown error');
    } finally {
      gone?.removeEventListener('abort', vanished);
      session.busy--;
      if (method === 'DELETE' && path === `/session/${id}`) await this.end(id, 'deleted', false);
      else if (this.sessions.has(id)) this.armIdle(session);
    }
  }

  /** A running session by its id (the key its client holds), or W3C `invalid session id` saying why not. */
  sessionFor(id: string): HubSession {
    const session = this.sessions.get(id);
    if (session) return session;
    const reason = this.ended.get(id);
    if (reason) throw new W3CError('invalid session id', `Session ${id.slice(0, 80)} ended (${reason})`);
    throw invalidSessionId(id);
  }

  /** New Session requests waiting in this instance's queue. */
  get waiting(): number {
    return this.queue.size;
  }

  get(id: string): HubSession | undefined {
    return this.sessions.get(id);
  }

  /**
   * Ends a session and frees its device. Unless its client deleted it (`tellAppium` false), Appium
   * is asked to delete it too, so the device is left without a session.
   */
  async end(id: string, reason: EndReason, tellAppium = true): Promise<boolean> {
    const session = this.sessions.get(id);
    if (!session) return false;
    this.sessions.delete(id);
    this.disarmIdle(session);
    this.remember(id, reason);
    if (tellAppium && reason !== 'agent offline') {
      await this.closing(session);
      const params = { sessionId: session.place.device.sessionId, method: 'DELETE', path: `/session/${id}` };
      // Not waited on for long: a hung Appium must not keep the device from the next session.
      await this.router.call(session.place, 'webdriver', params, Math.min(this.config.agents.requestTimeoutMs, END_DELETE_TIMEOUT_MS)).catch(() => undefined);
    }
    await this.reservations.release(session.place.device.sessionId, id);
    this.logger.log(`Session ${id} ended (${reason}); device ${session.place.device.sessionId} is free`);
    this.events.emit(HubSessionEndedEvent.eventName, new HubSessionEndedEvent(id, session.place.device.sessionId, session.buildId, reason, session.verdict));
    this.pump();
    return true;
  }

  /** Before Appium deletes the session: its evidence (final screenshot, device log) is taken while Appium still has it. */
  private async closing(session: HubSession): Promise<void> {
    await this.events.emitAsync(HubSessionClosingEvent.eventName, new HubSessionClosingEvent(session.id, session.place)).catch(() => undefined);
  }

  /** An agent that went away (from any instance) takes its sessions with it. */
  @OnEventOnEveryInstance(AgentOfflineEvent.eventName)
  async agentOffline(event: AgentOfflineEvent): Promise<void> {
    try {
      const gone = [...this.sessions.values()].filter((s) => s.place.agentName === event.agentName);
      for (const session of gone) await this.end(session.id, 'agent offline');
    } catch (err) {
      this.logger.error(`Ending the sessions of agent ${event.agentName} failed: ${(err as Error).message}`);
    }
  }

  async onModuleDestroy(): Promise<void> {
    if (this.recheck) clearInterval(this.recheck);
    if (this.instanceCheck) clearInterval(this.instanceCheck);
    for (const id of [...this.sessions.keys()]) await this.end(id, 'relay stopping').catch(() => undefined);
  }

  /** A device for the request: one free now, or the first the queue hands it within its queue timeout. */
  private async acquire(
    request: HubRequest,
    userId: number,
    gone: AbortSignal,
    provisional: string,
    take: (place: SessionPlace) => Promise<boolean>,
  ): Promise<SessionPlace> {
    const all = await this.locator.allDevices();
    const matching = all.filter((p) => matches(p, request));
    if (!matching.length) throw sessionNotCreated(`No device on this relay matches ${describe(request)}`);
    const withAppium = matching.filter((p) => this.runsAppium(p));
    if (!withAppium.length) {
      const agents = [...new Set(matching.map((p) => p.agentName))].join(', ');
      throw sessionNotCreated(
        `The agent${agents.includes(',') ? 's' : ''} holding a device that matches ${describe(request)} (${agents}) ` +
          'run without Appium: start the agent with `svc agent --appium <url of the host’s Appium server>`',
      );
    }
    return new Promise<SessionPlace>((resolve, reject) => {
      const waiter: Waiter<SessionPlace> = {
        userId,
        matches: (p) => matches(p, request) && this.runsAppium(p) && isOnline(p) && p.device.state === 'booted',
        take,
        grant: (place) => {
          cleanup();
          resolve(place);
        },
        giveBack: (place) => void this.free(place, provisional),
      };
      const timer = setTimeout(() => {
        if (!this.queue.remove(waiter)) return;
        cleanup();
        const ids = withAppium.map((p) => p.device.sessionId);
        void this.reservations.freeAmong(ids).then(
          (free) => free.length,
          () => ids.length,
        ).then((free) => {
          const held = ids.length - free;
          reject(
            sessionNotCreated(
              `No free device matching ${describe(request)} within svc:queueTimeout (${request.queueTimeoutMs / 1000} s): ` +
                `${withAppium.length} match, ${held} in use, ${withAppium.length - held} offline or not booted`,
            ),
          );
        });
      }, request.queueTimeoutMs);
      const abandoned = () => {
        if (!this.queue.remove(waiter)) return;
        cleanup();
        reject(sessionNotCreated('The client stopped waiting for a device'));
      };
      const cleanup = () => {
        clearTimeout(timer);
        gone.removeEventListener('abort', abandoned);
        if (!this.queue.size && this.recheck) {
          clearInterval(this.recheck);
          this.recheck = null;
        }
      };
      gone.addEventListener('abort', abandoned);
      this.queue.enqueue(waiter);
      this.recheck ??= setInterval(() => this.pump(), QUEUE_RECHECK_MS);
      this.recheck.unref?.();
      this.pump();
    });
  }

  /** Offers every free device to the queue (members in turn: DeviceQueue). */
  private pump(): void {
    if (!this.queue.size) return;
    this.locator
      .allDevices()
      .then(async (all) => {
        const ready = all.filter((p) => isOnline(p) && p.device.state === 'booted');
        const free = new Set(await this.reservations.freeAmong(ready.map((p) => p.device.sessionId)));
        await this.queue.serve(ready.filter((p) => free.has(p.device.sessionId)));
      })
      .catch((err: Error) => this.logger.error(`Offering free devices to the queue failed: ${err.message}`));
  }

  /** A device taken for a session that did not begin: free again, and offered to the queue. */
  private async free(place: SessionPlace, hubSessionId: string): Promise<void> {
    await this.reservations.release(place.device.sessionId, hubSessionId).catch(() => undefined);
    this.pump();
  }

  private runsAppium(place: SessionPlace): boolean {
    // An agent on another instance said its hello there: it is asked, and refuses if it has no Appium.
    if (!place.connection) return place.instanceId !== null;
    return this.directory.lastHello(place.agentName)?.appium === true;
  }

  private armIdle(session: HubSession): void {
    this.disarmIdle(session);
    if (session.busy) return;
    session.idleTimer = setTimeout(() => void this.end(session.id, 'idle'), session.newCommandTimeoutMs);
  }

  private disarmIdle(session: HubSession): void {
    if (session.idleTimer) clearTimeout(session.idleTimer);
    session.idleTimer = null;
  }

  private remember(id: string, reason: EndReason): void {
    this.ended.set(id, reason);
    if (this.ended.size > ENDED_KEPT) this.ended.delete(this.ended.keys().next().value!);
  }

  /** What the agent answered, as the client gets it: Appium's status and body, or a W3C error of the hub. */
  private answerOf(outcome: RpcOutcome, failure: 'session not created' | 'unknown error'): WebDriverAnswer {
    switch (outcome.kind) {
      case 'ok': {
        const { status, body } = (outcome.result ?? {}) as { status?: unknown; body?: unknown };
        if (typeof status === 'number' && status >= 100 && status < 600) return { status, body: body ?? null };
        throw new W3CError('unknown error', 'The agent answered without an Appium status', 502);
      }
      case 'offline':
        throw new W3CError(failure, 'The device’s agent went offline', 502);
      case 'busy':
        throw new W3CError(failure, 'The device’s agent is busy (not reading its connection); try again', 503);
      case 'timeout':
        throw new W3CError(failure, 'The device’s agent did not answer in time', 504);
      case 'error':
        if (outcome.code === 'unsupported') {
          throw new W3CError(failure, 'The device’s agent runs without Appium: start it with `svc agent --appium <url>`');
        }
        throw new W3CError(failure, outcome.message.trim() || 'The device’s agent failed', failure === 'session not created' ? 500 : 502);
    }
  }
}

/**
 * `driver.executeScript('svc:status', [{ status, reason }])` (as BrowserStack's and Sauce's status
 * scripts): the relay's own, answered here and never sent to Appium. undefined: another script.
 */
function clientVerdictOf(body: unknown): ClientVerdict | undefined {
  const { script, args } = (body ?? {}) as { script?: unknown; args?: unknown };
  if (script !== 'svc:status') return undefined;
  const arg = (Array.isArray(args) ? args[0] : undefined) as { status?: unknown; reason?: unknown } | undefined;
  if (arg?.status !== 'passed' && arg?.status !== 'failed') {
    throw new W3CError('invalid argument', 'svc:status takes [{ "status": "passed" | "failed", "reason": "…" }]');
  }
  return { status: arg.status, reason: typeof arg.reason === 'string' ? arg.reason.slice(0, 1000) : null };
}

function matches(place: SessionPlace, request: HubRequest): boolean {
  const { device } = place;
  if (request.platform && device.platform.toLowerCase() !== request.platform) return false;
  if (request.deviceName && device.name.toLowerCase() !== request.deviceName.toLowerCase()) return false;
  if (request.platformVersion && !`${device.osVersion}.`.startsWith(`${request.platformVersion.replace(/\.$/, '')}.`)) return false;
  return true;
}

function describe(request: HubRequest): string {
  const parts = [
    request.platform && `platformName ${request.platform === 'ios' ? 'iOS' : 'Android'}`,
    request.platformVersion && `appium:platformVersion ${request.platformVersion}`,
    request.deviceName && `appium:deviceName ${request.deviceName}`,
  ].filter(Boolean);
  return parts.length ? parts.join(', ') : 'any device';
}

function appOf(build: BuildUnderTest) {
  return { buildId: build.id, name: build.name, bundleId: build.bundleId, platform: build.platform, version: build.version };
}

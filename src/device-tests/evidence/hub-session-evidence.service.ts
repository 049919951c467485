import { BeforeApplicationShutdown, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { rm, writeFile } from 'node:fs/promises';
import type { SessionPlace } from '../../agents/agent-locator.service';
import { AgentRouter } from '../../agents/agent-router.service';
import { Clock } from '../../common/clock';
import { randomHex } from '../../common/crypto/secret-token';
import { tempUploadPath } from '../../common/multipart/multipart-receiver';
import { RelayConfig } from '../../config/relay-config';
import { inLists } from '../../database/in-lists';
import type { Recording } from '../../recordings/recordings.mapper';
import { RECORDING_TTL_MS, RecordingsService } from '../../recordings/recordings.service';
import { SessionRecordingsService } from '../../sessions/recording/session-recordings.service';
import { FileStore } from '../../storage/file-store';
import { PRIVATE_FILE_MODE } from '../../storage/private-modes';
import { StoragePaths } from '../../storage/storage-paths';
import { folderOwner, ORPHAN_FILE_GRACE_MS, StoredFileOwners } from '../../storage/stored-file-owners';
import { HubCommandEvent, HubSessionClosingEvent, HubSessionEndedEvent, HubSessionStartedEvent } from '../hub/hub-session.events';
import { HubSessionsService } from '../hub/hub-sessions.service';
import { MAX_COMMANDS, placeOnTimeline, timelineCommand, TimelineCommand } from './command-timeline';
import { HubSessionsRepository } from './hub-sessions.repository';

/** The evidence's folder in the store: `device-tests/hub-<32 hex>.png|.jpg|.log`. */
export const EVIDENCE_PREFIX = 'device-tests/';
/** A final screenshot larger than this (decoded) is not kept. */
const MAX_SCREENSHOT_BYTES = 8 * 1024 * 1024;
/** The device log keeps its last this many bytes (the end of a run is what explains it). */
const MAX_LOG_BYTES = 1024 * 1024;
/** How long the final screenshot and the device log may take, each (the client's DELETE waits for them). */
const CAPTURE_TIMEOUT_MS = 10_000;

/** A session that ended before its device's first key frame waits this long for one (the encoder's start), so it has a picture. */
const FIRST_FRAME_WAIT_MS = 5000;

interface Captured {
  path: string;
  mime: string;
  extension: string;
}

/** What is gathered about a running hub session until it ends. */
interface Gathering {
  deviceSessionId: string;
  member: string;
  userId: number;
  runName: string | null;
  startedAt: Date;
  platform: string;
  commands: TimelineCommand[];
  truncated: boolean;
  /** The recording's start (resolves false when the device could not be recorded). */
  recording: Promise<boolean>;
  screenshot: Captured | null;
  log: Captured | null;
  logType: string | null;
  /** When the session ended (epoch ms): a command received later (answered `invalid session id`) is not the session's. */
  endedAt: number | null;
  /** The screenshot and log were asked for (a client's DELETE and an Admin's end at once: asked once). */
  closing: boolean;
}

/**
 * Every hub session recorded (docs/device-tests.md "What is recorded"): its device's live H.264
 * through the session recorder from start to end, a timeline of its WebDriver commands, and, just
 * before Appium deletes it, a final screenshot and the device log. At the end all of it is stored
 * (files through the FileStore, disk or S3, like recordings) with one hub_sessions row, kept as long
 * as recordings are.
 */
@Injectable()
export class HubSessionEvidence implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger('HubSessionEvidence');
  private readonly gathering = new Map<string, Gathering>();
  private readonly saving = new Set<Promise<void>>();
  /** Recordings being stopped, by device: the device's next session starts its recording after (one recording per device). */
  private readonly stopping = new Map<string, Promise<unknown>>();

  constructor(
    private readonly hub: HubSessionsService,
    private readonly router: AgentRouter,
    private readonly sessionRecordings: SessionRecordingsService,
    private readonly recordings: RecordingsService,
    private readonly rows: HubSessionsRepository,
    private readonly store: FileStore,
    private readonly paths: StoragePaths,
    private readonly owners: StoredFileOwners,
    private readonly clock: Clock,
    private readonly config: RelayConfig,
  ) {}

  onModuleInit(): void {
    this.owners.register(
      folderOwner(this.store, {
        orphans: 'orphan device-test evidence',
        every: 'hour',
        graceMs: ORPHAN_FILE_GRACE_MS,
        prefix: EVIDENCE_PREFIX,
        referenced: async () => new Set(await this.rows.fileNames()),
      }),
    );
  }

  /** The commands so far of a running session (`at` from its start), or undefined when it is not running here. */
  commandsSoFar(sessionId: string, startedAt: Date): { commands: TimelineCommand[]; truncated: boolean } | undefined {
    const gathering = this.gathering.get(sessionId);
    if (!gathering) return undefined;
    return { commands: placeOnTimeline(gathering.commands, startedAt.getTime()), truncated: gathering.truncated };
  }

  @OnEvent(HubSessionStartedEvent.eventName)
  onStarted(event: HubSessionStartedEvent): void {
    const session = this.hub.get(event.hubSessionId);
    if (!session) return;
    const previous = this.stopping.get(event.deviceSessionId) ?? Promise.resolve();
    const recording = previous
      .then(() => this.sessionRecordings.startForHub(event.deviceSessionId, event.buildId, { userId: event.userId, label: session.member }))
      .then(() => true)
      .catch((err: Error) => {
        this.logger.warn(`Session ${event.hubSessionId} is not recorded: ${err.message}`);
        return false;
      });
    this.gathering.set(event.hubSessionId, {
      deviceSessionId: event.deviceSessionId,
      member: session.member,
      userId: session.userId,
      runName: session.runName,
      startedAt: session.startedAt,
      platform: session.place.device.platform,
      commands: [],
      truncated: false,
      recording,
      screenshot: null,
      log: null,
      logType: null,
      endedAt: null,
      closing: false,
    });
  }

  @OnEvent(HubCommandEvent.eventName)
  onCommand(event: HubCommandEvent): void {
    const gathering = this.gathering.get(event.hubSessionId);
    if (!gathering || (gathering.endedAt !== null && event.at > gathering.endedAt)) return;
    if (gathering.commands.length >= MAX_COMMANDS) {
      gathering.truncated = true;
      return;
    }
    gathering.commands.push(timelineCommand(event.hubSessionId, event));
  }

  /** Before Appium deletes the session: the final screenshot and the device log, both bounded in time and size. */
  @OnEvent(HubSessionClosingEvent.eventName)
  async onClosing(event: HubSessionClosingEvent): Promise<void> {
    const gathering = this.gathering.get(event.hubSessionId);
    if (!gathering || gathering.closing) return;
    gathering.closing = true;
    const logType = gathering.platform === 'ios' ? 'syslog' : 'logcat';
    const [screenshot, log] = await Promise.all([
      this.takeScreenshot(event.place, event.hubSessionId).catch(() => null),
      this.readDeviceLog(event.place, event.hubSessionId, logType).catch(() => null),
    ]);
    gathering.screenshot = screenshot;
    gathering.log = log;
    gathering.logType = log ? logType : null;
  }

  @OnEvent(HubSessionEndedEvent.eventName)
  onEnded(event: HubSessionEndedEvent): void {
    const gathering = this.gathering.get(event.hubSessionId);
    if (!gathering) return;
    gathering.endedAt = Date.now();
    const saved = this.save(event, gathering, this.stopRecording(gathering))
      .catch((err: Error) => this.logger.error(`Storing the evidence of session ${event.hubSessionId} failed: ${err.message}`, err.stack))
      .finally(() => {
        this.gathering.delete(event.hubSessionId);
        this.saving.delete(saved);
      });
    this.saving.add(saved);
  }

  /** Evidence still being stored when the relay stops is stored first (the database closes after). */
  async beforeApplicationShutdown(): Promise<void> {
    await Promise.allSettled([...this.saving]);
  }

  /** Waits for every ended session's evidence to be stored (tests, shutdown). */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.saving]);
  }

  /** Deletes evidence past its retention: the rows first (so nothing is served), then the files. */
  async purgeExpired(): Promise<number> {
    const expired = await this.rows.expiredAt(this.clock.now());
    for (const batch of inLists(expired)) {
      await this.rows.deleteIds(batch.map((r) => r.id));
      const keys = batch.flatMap((r) => [r.screenshot, r.deviceLog]).filter((name): name is string => name !== null).map((name) => EVIDENCE_PREFIX + name);
      await this.store.remove(keys).catch((err: Error) => this.logger.warn(`Could not remove ${keys.length} device-test file(s): ${err.message}`));
    }
    return expired.length;
  }

  private async save(event: HubSessionEndedEvent, gathering: Gathering, stopped: Promise<Recording | null>): Promise<void> {
    // The client's DELETE is told (HubCommandEvent) a few promise hops after the end: let it in first.
    await new Promise((resolve) => setImmediate(resolve));
    const recording = await stopped;
    const videoStart = recording ? await this.videoStart(recording.id) : null;
    const stored: string[] = [];
    try {
      const screenshot = await this.keep(gathering.screenshot, stored);
      const deviceLog = await this.keep(gathering.log, stored);
      const endedAt = this.clock.now();
      await this.rows.insert({
        sessionId: event.hubSessionId,
        deviceSessionId: gathering.deviceSessionId,
        buildId: event.buildId,
        runName: gathering.runName,
        userId: gathering.userId,
        member: gathering.member,
        startedAt: gathering.startedAt,
        endedAt,
        endReason: event.reason,
        verdict: event.verdict?.status ?? null,
        verdictReason: event.verdict?.reason ?? null,
        recording: recording ? recording.url.slice(recording.url.lastIndexOf('/') + 1) : null,
        screenshot,
        deviceLog,
        logType: deviceLog ? gathering.logType : null,
        timeline: JSON.stringify({
          commands: placeOnTimeline(gathering.commands, videoStart ?? gathering.startedAt.getTime()),
          truncated: gathering.truncated,
        }),
        // As long as the recording: recordings are kept RECORDING_TTL_MS from when they are stored.
        expiresAt: new Date(endedAt.getTime() + RECORDING_TTL_MS),
      });
    } catch (err) {
      await this.store.remove(stored).catch(() => undefined);
      throw err;
    } finally {
      await Promise.all([gathering.screenshot, gathering.log].map((c) => c && rm(c.path, { force: true })));
    }
  }

  /** Stops the session's recording (if it started); the device's next session starts its own once this is done. */
  private stopRecording(gathering: Gathering): Promise<Recording | null> {
    const device = gathering.deviceSessionId;
    const stopped = gathering.recording.then((recorded) => (recorded ? this.sessionRecordings.stopForHub(device, FIRST_FRAME_WAIT_MS).catch(() => null) : null));
    const settled = stopped.then(() => undefined);
    this.stopping.set(device, settled);
    void settled.then(() => {
      if (this.stopping.get(device) === settled) this.stopping.delete(device);
    });
    return stopped;
  }

  /** Moves a captured file into the store under a new name; its name (without the folder), or null. */
  private async keep(captured: Captured | null, stored: string[]): Promise<string | null> {
    if (!captured) return null;
    const name = `hub-${randomHex(16)}.${captured.extension}`;
    await this.store.put(EVIDENCE_PREFIX + name, captured.path, captured.mime);
    stored.push(EVIDENCE_PREFIX + name);
    return name;
  }

  /** When the recording's first frame was captured (relay clock), from its timeline; null when unknown. */
  private async videoStart(recordingId: number): Promise<number | null> {
    const source = await this.recordings.evidenceSource({ id: recordingId }).catch(() => null);
    const timeline = await source?.timeline().catch(() => null);
    const at = timeline ? Date.parse(timeline.startedAt) : NaN;
    return Number.isFinite(at) ? at : null;
  }

  private async takeScreenshot(place: SessionPlace, sessionId: string): Promise<Captured | null> {
    const value = await this.ask(place, 'GET', `/session/${sessionId}/screenshot`);
    if (typeof value !== 'string' || value.length > (MAX_SCREENSHOT_BYTES * 4) / 3 + 4) return null;
    const bytes = Buffer.from(value, 'base64');
    const png = bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    const jpeg = bytes[0] === 0xff && bytes[1] === 0xd8;
    if (!png && !jpeg) return null;
    return this.writeTemp(bytes, png ? 'image/png' : 'image/jpeg', png ? 'png' : 'jpg');
  }

  /** Appium's log endpoint (`POST /session/:id/se/log`): entries as lines `time level message`, the last MAX_LOG_BYTES kept. */
  private async readDeviceLog(place: SessionPlace, sessionId: string, type: string): Promise<Captured | null> {
    const value = await this.ask(place, 'POST', `/session/${sessionId}/se/log`, { type });
    if (!Array.isArray(value)) return null;
    const lines = value.map((entry: { timestamp?: unknown; level?: unknown; message?: unknown }) => {
      const time = typeof entry?.timestamp === 'number' ? new Date(entry.timestamp).toISOString() : '';
      const message = typeof entry?.message === 'string' ? entry.message : JSON.stringify(entry);
      return [time, typeof entry?.level === 'string' ? entry.level : '', message].filter(Boolean).join(' ');
    });
    let text = lines.join('\n') + (lines.length ? '\n' : '');
    if (Buffer.byteLength(text) > MAX_LOG_BYTES) text = Buffer.from(text).subarray(-MAX_LOG_BYTES).toString('utf8').replace(/^[^\n]*\n/, '');
    return this.writeTemp(Buffer.from(text), 'text/plain; charset=utf-8', 'log');
  }

  /** A WebDriver request of the relay's own on the session's Appium; the answer's `value` when it succeeded. */
  private async ask(place: SessionPlace, method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
    const outcome = await this.router.call(place, 'webdriver', { sessionId: place.device.sessionId, method, path, body }, Math.min(CAPTURE_TIMEOUT_MS, Math.max(this.config.agents.requestTimeoutMs, 1000)));
    if (outcome.kind !== 'ok') return undefined;
    const { status, body: answer } = (outcome.result ?? {}) as { status?: number; body?: { value?: unknown } };
    return status === 200 ? answer?.value : undefined;
  }

  private async writeTemp(bytes: Buffer, mime: string, extension: string): Promise<Captured> {
    const path = tempUploadPath(this.paths.tmp);
    await writeFile(path, bytes, { mode: PRIVATE_FILE_MODE });
    return { path, mime, extension };
  }
}

import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { stat } from 'node:fs/promises';
import { AgentOfflineEvent } from '../../agents/events/agent-offline.event';
import { AuditActor, actorOf, auditEvent, RELAY_ACTOR } from '../../audit/audit-actor';
import { AUDIT_EVENT } from '../../audit/audit-event';
import type { Principal } from '../../common/auth/principal';
import { conflict, HttpError, notFound } from '../../common/errors/http-error';
import { isoWithMillis } from '../../common/time';
import { OnEventOnEveryInstance } from '../../cluster/on-every-instance.decorator';
import { RelayConfig } from '../../config/relay-config';
import type { Recording } from '../../recordings/recordings.mapper';
import { RecordingsService } from '../../recordings/recordings.service';
import { DeviceSessionsService, isOnline, SESSION_NOT_FOUND } from '../device-sessions.service';
import { DeviceActionEvent } from '../events/device-action.event';
import { VideoHub } from '../video/video-hub.service';
import { RecordingInProgress } from './session-recording.mapper';
import { EndReason, SessionRecording } from './session-recording';

export const RecordingMessages = {
  alreadyRecording: 'This session is already being recorded; stop that recording first',
  notRecording: 'This session is not being recorded',
  nothingRecorded: 'Nothing was recorded: the device sent no video',
} as const;

/** A stop that comes after the recording ended by itself still gets its result for this long. */
const ENDED_KEPT_MS = 10 * 60_000;
/** Builds installed through the relay, remembered per session (the default build under test), at most this many sessions. */
const MAX_INSTALLED_REMEMBERED = 10_000;

interface Running {
  recording: SessionRecording;
  stopTimer: NodeJS.Timeout;
  ticker: NodeJS.Timeout;
  reading: boolean;
}

/**
 * Recordings of live device sessions (docs/recordings.md): at most one per session, held by the
 * instance that started it. It joins the session's video hub like a viewer, writes the MP4 as frames
 * come, collects device actions and a UI tree every few seconds, and on stop (or when the session or
 * its agent goes away, or at the maximum duration) becomes a Recording of the recordings module.
 */
@Injectable()
export class SessionRecordingsService implements BeforeApplicationShutdown {
  private readonly logger = new Logger('SessionRecordings');
  private readonly running = new Map<string, Running>();
  private readonly ended = new Map<string, { result: Promise<Recording>; at: number }>();
  private readonly installed = new Map<string, number>();
  /** Recordings being finished and stored, so a shutdown waits for them before the database closes. */
  private readonly saving = new Set<Promise<Recording>>();

  constructor(
    private readonly sessions: DeviceSessionsService,
    private readonly hub: VideoHub,
    private readonly recordings: RecordingsService,
    private readonly config: RelayConfig,
    private readonly events: EventEmitter2,
  ) {}

  async start(sessionId: string, buildId: number | null, principal: Principal): Promise<RecordingInProgress> {
    return this.begin(sessionId, buildId, { userId: principal.userId, label: principal.email }, actorOf(principal));
  }

  /**
   * A WebDriver hub session's recording (docs/device-tests.md): started by the relay for the member
   * whose client opened the session (audited as the relay's), stopped with stopForHub when the session ends.
   */
  startForHub(sessionId: string, buildId: number | null, member: { userId: number; label: string }): Promise<RecordingInProgress> {
    return this.begin(sessionId, buildId, member, RELAY_ACTOR);
  }

  /**
   * Stops a hub session's recording and stores it (the relay as the one who stopped it). A session
   * shorter than the agent's encoder start (0.5–2 s for `--fake`) waits up to `waitForVideoMs` for
   * its first key frame, so that it still has a picture rather than nothing.
   */
  async stopForHub(sessionId: string, waitForVideoMs: number): Promise<Recording> {
    const deadline = Date.now() + waitForVideoMs;
    while (this.running.get(sessionId)?.recording.hasVideo === false && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    return this.end(sessionId, 'stopped');
  }

  private async begin(sessionId: string, buildId: number | null, startedBy: { userId: number; label: string }, actor: AuditActor): Promise<RecordingInProgress> {
    await this.sessions.bootedSession(sessionId);
    if (this.running.has(sessionId)) throw conflict(RecordingMessages.alreadyRecording);
    const recording = new SessionRecording(
      sessionId,
      buildId ?? this.installed.get(sessionId) ?? null,
      startedBy,
      this.recordings.newTempVideoPath(),
      this.config.maxRecordingBytes,
      (reason) => this.endInBackground(sessionId, reason),
    );
    const run: Running = {
      recording,
      stopTimer: setTimeout(() => this.endInBackground(sessionId, 'max_duration'), this.config.maxRecordingDurationMs),
      ticker: setInterval(() => void this.tick(sessionId), this.config.recordingSnapshotIntervalMs),
      reading: false,
    };
    run.stopTimer.unref();
    run.ticker.unref();
    this.running.set(sessionId, run);
    this.hub.join(sessionId, recording, (failure) => {
      this.logger.warn(`The recording of ${sessionId} has no video: ${failure.reason}`);
      this.endInBackground(sessionId, 'stream_failed');
    });
    this.readUiTree(run);
    this.logger.log(`Recording ${sessionId} (${recording.id}) for ${startedBy.label}`);
    this.audit(actor, 'recording.started', sessionId, { recording_id: recording.id, build_id: recording.buildId });
    return this.inProgress(recording);
  }

  current(sessionId: string): RecordingInProgress {
    const run = this.running.get(sessionId);
    if (!run) throw notFound(RecordingMessages.notRecording);
    return this.inProgress(run.recording);
  }

  /** Stops and stores; a recording that ended by itself in the last ten minutes answers its result. */
  async stop(sessionId: string, principal: Principal): Promise<Recording> {
    if (this.running.has(sessionId)) return this.end(sessionId, 'stopped', actorOf(principal));
    const ended = this.ended.get(sessionId);
    if (ended && Date.now() - ended.at < ENDED_KEPT_MS) return ended.result;
    if (!(await this.sessions.locate(sessionId))) throw notFound(SESSION_NOT_FOUND);
    throw conflict(RecordingMessages.notRecording);
  }

  @OnEventOnEveryInstance(DeviceActionEvent.eventName)
  onDeviceAction(event: DeviceActionEvent): void {
    const run = this.running.get(event.sessionId);
    run?.recording.timeline.action(event);
    const buildId = event.detail.buildId;
    if (event.method !== 'install_build' || event.outcome !== 'ok' || typeof buildId !== 'number') return;
    this.installed.delete(event.sessionId);
    this.installed.set(event.sessionId, buildId);
    if (this.installed.size > MAX_INSTALLED_REMEMBERED) this.installed.delete(this.installed.keys().next().value!);
    if (run && run.recording.buildId === null) run.recording.buildId = buildId;
  }

  @OnEventOnEveryInstance(AgentOfflineEvent.eventName)
  onAgentOffline(event: AgentOfflineEvent): void {
    for (const sessionId of event.sessionIds) if (this.running.has(sessionId)) this.endInBackground(sessionId, 'agent_offline');
  }

  /** Recordings still running when the relay stops are kept, as far as they got (and those being stored finish first). */
  async beforeApplicationShutdown(): Promise<void> {
    for (const sessionId of [...this.running.keys()]) void this.end(sessionId, 'shutdown').catch(() => undefined);
    await Promise.allSettled([...this.saving]);
  }

  private endInBackground(sessionId: string, reason: EndReason): void {
    if (!this.running.has(sessionId)) return;
    this.end(sessionId, reason).catch((err: Error) => {
      if (!(err instanceof HttpError)) this.logger.error(`Saving the recording of ${sessionId} failed: ${err.message}`, err.stack);
    });
  }

  /** `actor`: who stopped it; the relay itself when it ended by itself. */
  private end(sessionId: string, reason: EndReason, actor: AuditActor = RELAY_ACTOR): Promise<Recording> {
    const run = this.running.get(sessionId);
    if (!run) return this.ended.get(sessionId)?.result ?? Promise.reject(conflict(RecordingMessages.notRecording));
    this.running.delete(sessionId);
    clearTimeout(run.stopTimer);
    clearInterval(run.ticker);
    this.hub.leave(sessionId, run.recording);
    const result = this.save(run.recording, reason, actor);
    this.saving.add(result);
    result.catch(() => undefined).finally(() => this.saving.delete(result));
    this.forgetOldEnded();
    this.ended.set(sessionId, { result, at: Date.now() });
    return result;
  }

  private async save(recording: SessionRecording, reason: EndReason, actor: AuditActor): Promise<Recording> {
    const audited = { recording_id: recording.id, reason };
    try {
      const video = await recording.finish();
      if (!video) throw conflict(RecordingMessages.nothingRecorded);
      const { sessionId, buildId } = recording;
      const timeline = recording.timeline.build({ sessionId, buildId, endedBy: reason }, video.startedAt, video.durationMs);
      const path = recording.videoPath;
      const saved = await this.recordings.saveSessionRecording({
        videoPath: path,
        videoBytes: (await stat(path)).size,
        timeline,
        sessionId,
        buildId,
        startedBy: recording.startedBy.userId,
      });
      this.logger.log(`Recorded ${sessionId}: ${video.frames} frames, ${video.durationMs} ms, ${saved.fileSize} bytes (${reason})`);
      this.audit(actor, 'recording.stopped', sessionId, { ...audited, stored: true, url: saved.url, file_size: saved.fileSize, duration_ms: video.durationMs });
      return saved;
    } catch (err) {
      await recording.discard();
      this.audit(actor, 'recording.stopped', recording.sessionId, { ...audited, stored: false });
      throw err;
    }
  }

  /** Every snapshot interval: the session still there, the file still writable, then a UI tree unless the last is still awaited. */
  private async tick(sessionId: string): Promise<void> {
    const run = this.running.get(sessionId);
    if (!run) return;
    if (run.recording.failure) return this.endInBackground(sessionId, 'write_failed');
    const place = await this.sessions.locate(sessionId).catch(() => null);
    if (!place || place.device.state !== 'booted') return this.endInBackground(sessionId, 'session_ended');
    if (!isOnline(place)) return this.endInBackground(sessionId, 'agent_offline');
    this.readUiTree(run);
  }

  private readUiTree(run: Running): void {
    if (run.reading) return;
    run.reading = true;
    const at = Date.now();
    this.sessions
      .uiTree(run.recording.sessionId)
      .then(({ elements }) => run.recording.timeline.snapshot(at, elements))
      .catch(() => undefined) // a device without a UI tree, or a slow one: the timeline goes on without
      .finally(() => (run.reading = false));
  }

  private audit(actor: AuditActor, action: string, sessionId: string, details: Record<string, string | number | boolean | null>): void {
    this.events.emit(AUDIT_EVENT, auditEvent(actor, action, `session:${sessionId.slice(0, 180)}`, details));
  }

  private forgetOldEnded(): void {
    const now = Date.now();
    for (const [sessionId, { at }] of this.ended) if (now - at >= ENDED_KEPT_MS) this.ended.delete(sessionId);
  }

  private inProgress(recording: SessionRecording): RecordingInProgress {
    return {
      id: recording.id,
      state: 'recording',
      sessionId: recording.sessionId,
      buildId: recording.buildId,
      startedAt: isoWithMillis(new Date(recording.startedAt)),
      stopsAt: isoWithMillis(new Date(recording.startedAt + this.config.maxRecordingDurationMs)),
      startedBy: recording.startedBy.label,
    };
  }
}

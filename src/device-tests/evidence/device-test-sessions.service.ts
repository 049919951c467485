import { Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import type { Response } from 'express';
import { actorOf, auditEvent } from '../../audit/audit-actor';
import { AUDIT_EVENT } from '../../audit/audit-event';
import type { Principal } from '../../common/auth/principal';
import { Clock } from '../../common/clock';
import { notFound } from '../../common/errors/http-error';
import { isoWithMillis } from '../../common/time';
import { FileStore } from '../../storage/file-store';
import { sendFromStore } from '../../storage/file-responses';
import { readId } from '../../common/validation/parse-id.pipe';
import type { HubSession } from '../hub/hub-session';
import { HubSessionsService } from '../hub/hub-sessions.service';
import { inLists } from '../../database/in-lists';
import { recordingUrl } from '../../recordings/recordings.mapper';
import { CommandTimeline, failingCommand } from './command-timeline';
import { DeviceTestSession, screenshotUrl, toDeviceTestSession } from './device-test-session.mapper';
import { EVIDENCE_PREFIX, HubSessionEvidence } from './hub-session-evidence.service';
import { HubSessionsRepository } from './hub-sessions.repository';

/** A build's list answers at most this many sessions (a build's CI runs rarely make more within the 72 hours). */
const LIST_LIMIT = 200;

export const DeviceTestSessionMessages = {
  notFound: 'Device-test session not found',
  notRunning: 'This device-test session is not running on this relay',
  noScreenshot: 'This device-test session has no final screenshot',
  noLog: 'This device-test session has no device log',
} as const;

/** A failed session's final screenshot, its recording, and the failing command's place on it (ms from the first frame). */
export interface FailureEvidence {
  screenshotUrl: string | null;
  recordingUrl: string | null;
  failedAtMs: number | null;
}

/** Reading a hub session with its evidence (running: from memory; ended: hub_sessions), its files, and an Admin ending one. */
@Injectable()
export class DeviceTestSessionsService {
  constructor(
    private readonly hub: HubSessionsService,
    private readonly evidence: HubSessionEvidence,
    private readonly rows: HubSessionsRepository,
    private readonly store: FileStore,
    private readonly clock: Clock,
    private readonly events: EventEmitter2,
  ) {}

  /**
   * A build's ended sessions still kept, newest first (at most LIST_LIMIT). Not the running ones: a
   * running session's id is the key its commands go by (docs/decisions.md), so no list shows it;
   * running sessions are watched through the devices they hold (GET /devices).
   */
  async endedOfBuild(buildIdValue: unknown): Promise<DeviceTestSession[]> {
    const buildId = readId(buildIdValue, 'buildId');
    if (buildId === null) return [];
    return (await this.rows.liveOfBuild(buildId, this.clock.now(), LIST_LIMIT)).map(toDeviceTestSession);
  }

  /**
   * What shows a failure of these ended sessions (the runs panel's failing tests and sessions): the
   * final screenshot and where on the recording the failing command is (failingCommand), by session id.
   */
  async failureEvidence(ids: string[]): Promise<Map<string, FailureEvidence>> {
    const evidence = new Map<string, FailureEvidence>();
    const wanted = [...new Set(ids)].filter((id) => id.length <= 100);
    for (const batch of inLists(wanted)) {
      for (const row of await this.rows.evidenceOf(batch, this.clock.now())) {
        const { commands } = JSON.parse(row.timeline) as CommandTimeline;
        evidence.set(row.sessionId, {
          screenshotUrl: row.screenshot ? screenshotUrl(row.sessionId) : null,
          recordingUrl: row.recording ? recordingUrl(row.recording) : null,
          failedAtMs: failingCommand(commands)?.at ?? null,
        });
      }
    }
    return evidence;
  }

  async get(id: string): Promise<DeviceTestSession> {
    const running = this.hub.get(id);
    if (running) return this.runningView(running);
    return toDeviceTestSession(await this.ended(id));
  }

  private runningView(running: HubSession): DeviceTestSession {
    const id = running.id;
    const sofar = this.evidence.commandsSoFar(id, running.startedAt) ?? { commands: [], truncated: false };
    return {
      id,
      state: 'running',
      deviceSessionId: running.place.device.sessionId,
      buildId: running.buildId,
      run: running.runName,
      member: running.member,
      startedAt: isoWithMillis(running.startedAt),
      endedAt: null,
      endReason: null,
      verdict: running.verdict,
      recordingUrl: null,
      screenshotUrl: null,
      deviceLogUrl: null,
      logType: null,
      ...sofar,
      expiresAt: null,
    };
  }

  async sendScreenshot(id: string, res: Response): Promise<void> {
    const row = await this.ended(id);
    if (!row.screenshot) throw notFound(DeviceTestSessionMessages.noScreenshot);
    await this.send(res, row.screenshot, row.screenshot.endsWith('.png') ? 'image/png' : 'image/jpeg', DeviceTestSessionMessages.noScreenshot);
  }

  async sendLog(id: string, res: Response): Promise<void> {
    const row = await this.ended(id);
    if (!row.deviceLog) throw notFound(DeviceTestSessionMessages.noLog);
    await this.send(res, row.deviceLog, 'text/plain; charset=utf-8', DeviceTestSessionMessages.noLog);
  }

  /**
   * An Admin ends a running session: Appium's session is deleted (after its final screenshot and
   * device log are taken), the device is freed, and the client's next command answers
   * `invalid session id` ("ended by an Admin"). Audited.
   */
  async end(id: string, principal: Principal): Promise<void> {
    const session = this.hub.get(id);
    if (!session || !(await this.hub.end(id, 'ended by an Admin'))) throw notFound(DeviceTestSessionMessages.notRunning);
    this.events.emit(
      AUDIT_EVENT,
      auditEvent(actorOf(principal), 'device_test_session.ended', `session:${session.place.device.sessionId.slice(0, 180)}`, {
        hub_session_id: id.slice(0, 100),
        build_id: session.buildId,
        run: session.runName,
        held_by: session.member,
      }),
    );
  }

  /** An ended session still within its retention; 404 otherwise. */
  private async ended(id: string) {
    const row = id.length <= 100 ? await this.rows.findLive(id, this.clock.now()) : null;
    if (!row) throw notFound(DeviceTestSessionMessages.notFound);
    return row;
  }

  private send(res: Response, name: string, contentType: string, missing: string): Promise<void> {
    const headers = {
      'Content-Type': contentType,
      'X-Content-Type-Options': 'nosniff',
      'Content-Security-Policy': "default-src 'none'; sandbox",
      'Cache-Control': 'private, no-cache',
    };
    return sendFromStore(res, this.store, EVIDENCE_PREFIX + name, { dotfiles: 'deny', headers }, missing);
  }
}

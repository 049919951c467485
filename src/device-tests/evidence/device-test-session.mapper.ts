import { ApiProperty } from '@nestjs/swagger';
import { isoWithMillis } from '../../common/time';
import { recordingUrl } from '../../recordings/recordings.mapper';
import type { CommandTimeline } from './command-timeline';
import type { HubSessionRecordEntity } from './hub-session-record.entity';

class CommandLocator {
  @ApiProperty({ example: 'accessibility id' })
  using: string;
  @ApiProperty({ example: 'login_button' })
  value: string;
}

class CommandError {
  @ApiProperty({ example: 'no such element', description: 'the W3C error code' })
  error: string;
  @ApiProperty()
  message: string;
}

/** One WebDriver command of a device-test session, in the order its client sent them. */
export class DeviceTestCommand {
  @ApiProperty({ description: 'ms from the recording’s first frame (a player seeks to at / 1000 s); from the session’s start while it runs or when nothing was recorded' })
  at: number;
  @ApiProperty({ enum: ['GET', 'POST', 'DELETE'] })
  method: string;
  @ApiProperty({ example: '/element/5f1c…/click', description: 'below /session/<id>; empty for the session itself' })
  path: string;
  @ApiProperty({ type: String, nullable: true, example: 'elementClick', description: 'the W3C command’s name; null for commands not named (vendor ones)' })
  command: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'the element acted on, or the one a find found' })
  elementId: string | null;
  @ApiProperty({ type: CommandLocator, nullable: true, description: 'a find’s strategy and selector' })
  locator: CommandLocator | null;
  @ApiProperty()
  durationMs: number;
  @ApiProperty({ description: 'the HTTP status the client got' })
  status: number;
  @ApiProperty({ type: CommandError, nullable: true })
  error: CommandError | null;
}

class SessionVerdict {
  @ApiProperty({ enum: ['passed', 'failed'] })
  status: string;
  @ApiProperty({ type: String, nullable: true })
  reason: string | null;
}

/** GET /device-test-sessions/:id: a WebDriver hub session, running or ended, with its evidence. */
export class DeviceTestSession {
  @ApiProperty({ description: 'the WebDriver session id its client used' })
  id: string;
  @ApiProperty({ enum: ['running', 'ended'] })
  state: 'running' | 'ended';
  @ApiProperty({ example: 'fake-android-lab-1', description: 'the device it holds (held), as GET /devices names it: its live video is /sessions/<id>/video' })
  deviceSessionId: string;
  @ApiProperty({ type: Number, nullable: true })
  buildId: number | null;
  @ApiProperty({ type: String, nullable: true, description: 'svc:name' })
  run: string | null;
  @ApiProperty({ description: 'who opened it' })
  member: string;
  @ApiProperty({ format: 'date-time' })
  startedAt: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  endedAt: string | null;
  @ApiProperty({ type: String, nullable: true, enum: ['deleted', 'idle', 'agent offline', 'ended by an Admin', 'relay stopping'] })
  endReason: string | null;
  @ApiProperty({ type: SessionVerdict, nullable: true, description: 'what the client said with svc:status' })
  verdict: SessionVerdict | null;
  @ApiProperty({ type: String, nullable: true, example: '/api/v1/recordings/rec-0123456789abcdef0123456789abcdef.mp4', description: 'the recording (GET /recordings/:filename); null while running or when the device sent no video' })
  recordingUrl: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'the final screenshot (PNG), taken before the session was deleted' })
  screenshotUrl: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'the device log (text), read from Appium before the session was deleted' })
  deviceLogUrl: string | null;
  @ApiProperty({ type: String, nullable: true, enum: ['logcat', 'syslog'] })
  logType: string | null;
  @ApiProperty({ type: [DeviceTestCommand] })
  commands: DeviceTestCommand[];
  @ApiProperty({ description: 'more than 5,000 commands: the first ones are kept' })
  truncated: boolean;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'when the evidence is deleted (as recordings: 72 hours); null while running' })
  expiresAt: string | null;
}

export const screenshotUrl = (id: string) => `/api/v1/device-test-sessions/${encodeURIComponent(id)}/screenshot`;
export const deviceLogUrl = (id: string) => `/api/v1/device-test-sessions/${encodeURIComponent(id)}/log`;

export function toDeviceTestSession(row: HubSessionRecordEntity): DeviceTestSession {
  const timeline = JSON.parse(row.timeline) as CommandTimeline;
  return {
    id: row.sessionId,
    state: 'ended',
    deviceSessionId: row.deviceSessionId,
    buildId: row.buildId,
    run: row.runName,
    member: row.member,
    startedAt: isoWithMillis(row.startedAt),
    endedAt: isoWithMillis(row.endedAt),
    endReason: row.endReason,
    verdict: row.verdict ? { status: row.verdict, reason: row.verdictReason } : null,
    recordingUrl: row.recording ? recordingUrl(row.recording) : null,
    screenshotUrl: row.screenshot ? screenshotUrl(row.sessionId) : null,
    deviceLogUrl: row.deviceLog ? deviceLogUrl(row.sessionId) : null,
    logType: row.logType,
    commands: timeline.commands,
    truncated: timeline.truncated,
    expiresAt: isoWithMillis(row.expiresAt),
  };
}

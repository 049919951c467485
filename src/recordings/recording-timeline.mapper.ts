import { ApiProperty } from '@nestjs/swagger';
import { UiTree } from '../agents/protocol/ui-tree';

/** One device action done while recording (GET /recordings/:filename/timeline). */
export class TimelineEvent {
  @ApiProperty({ description: 'ms from the start of the video (its first frame), never negative' })
  at: number;
  @ApiProperty({
    example: 'tap',
    description:
      'the device method: tap, swipe, long_press (a swipe that stays in place for 500 ms or more), type_text, ' +
      'press_button, launch_app, install_build, or any other method forwarded to the agent',
  })
  type: string;
  @ApiProperty({ example: 'qa@example.com', description: 'who did it: the member, as the audit log names them (e-mail)' })
  by: string;
  @ApiProperty({ enum: ['cookie', 'pat', 'mcp'], description: 'dashboard (cookie), a PAT, or the MCP tools' })
  via: string;
  @ApiProperty({ example: 'ok', description: 'ok, or how it failed: error:<code>, timeout, offline, busy' })
  outcome: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: { oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] },
    example: { x: 0.5, y: 0.31 },
    description:
      'the request\'s params, fractions 0–1 for coordinates: tap {x, y}; swipe/long_press {fromX, fromY, toX, toY, durationMs}; ' +
      'type_text {textLength} (never the text); press_button {button}; launch_app {bundleId}; install_build {buildId}',
  })
  detail: Record<string, string | number | boolean>;
}

/** The UI tree at a moment of the recording; kept only when it differs from the previous snapshot. */
export class TimelineSnapshot {
  @ApiProperty({ description: 'ms from the start of the video' })
  at: number;
  @ApiProperty({ type: UiTree })
  tree: UiTree;
}

/** GET /recordings/:filename/timeline: what was done during a session recording, beside its video. */
export class RecordingTimeline {
  @ApiProperty({ example: 'fake-android-agent-1' })
  sessionId: string;
  @ApiProperty({ type: Number, nullable: true, description: 'the build under test' })
  buildId: number | null;
  @ApiProperty({ format: 'date-time', description: 'when the video\'s first frame was captured (relay clock)' })
  startedAt: string;
  @ApiProperty({ description: 'length of the video in ms' })
  durationMs: number;
  @ApiProperty({
    example: 'stopped',
    description:
      'why the recording ended: stopped (by a member), max_duration, max_size, session_ended, agent_offline, ' +
      'format_changed (the device changed resolution), shutdown (the relay stopped)',
  })
  endedBy: string;
  @ApiProperty({ type: [TimelineEvent], description: 'in order of `at`' })
  events: TimelineEvent[];
  @ApiProperty({
    type: [TimelineSnapshot],
    description: 'in order of `at`; the tree shown at time t is the last snapshot with at <= t',
  })
  snapshots: TimelineSnapshot[];
  @ApiProperty({ description: 'true when events or snapshots past the bounds were left out' })
  truncated: boolean;
}

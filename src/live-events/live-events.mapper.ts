import { ApiProperty } from '@nestjs/swagger';
import { BUILD_STATUSES, type BuildStatus } from '../builds/build-status';
import { ROLES, type Role } from '../common/auth/role';

/**
 * The payloads of GET /events, one class per event name, listed in the OpenAPI document (as extra
 * models) so the dashboard's generated client types them. Events carry ids and the changed values,
 * never whole resources: the dashboard refetches what it shows through the API.
 */
export class LiveReady {
  @ApiProperty({ description: 'the member the stream belongs to' })
  user_id: number;
  @ApiProperty({ enum: ROLES })
  role: Role;
}

export class LiveBuildCreated {
  @ApiProperty()
  build_id: number;
  @ApiProperty()
  app_id: number;
  @ApiProperty({ description: 'the uploader (a CI token acts as its owner)' })
  uploaded_by_id: number;
}

export class LiveBuildStatusChanged {
  @ApiProperty()
  build_id: number;
  @ApiProperty()
  app_id: number;
  @ApiProperty({ enum: BUILD_STATUSES, nullable: true })
  from_status: BuildStatus | null;
  @ApiProperty({ enum: BUILD_STATUSES, nullable: true })
  to_status: BuildStatus | null;
  @ApiProperty({ type: Number, nullable: true })
  changed_by_id: number | null;
  @ApiProperty({ type: String, nullable: true, description: 'display name, or the part of the e-mail before @' })
  changed_by: string | null;
  @ApiProperty({ format: 'date-time' })
  changed_at: string;
}

export class LiveBuildUpdated {
  @ApiProperty({ description: 'the label or the deletion schedule changed' })
  build_id: number;
}

export class LiveBuildsDeleted {
  @ApiProperty({ type: [Number] })
  build_ids: number[];
}

export class LiveComment {
  @ApiProperty()
  comment_id: number;
  @ApiProperty()
  build_id: number;
}

export class LiveRoleChanged {
  @ApiProperty({ enum: ROLES, description: 'the stream owner\'s new role' })
  role: Role;
}

export class LiveTeamChanged {
  @ApiProperty({ description: 'the member whose role changed or who was removed' })
  member_id: number;
}

export class LiveSessionEnded {
  @ApiProperty({ enum: ['signed_out', 'expired'], description: 'the stream closes after this event' })
  reason: 'signed_out' | 'expired';
}

/** Event names on the wire, and the payload each carries. */
export const LIVE_EVENTS = {
  ready: LiveReady,
  'build.created': LiveBuildCreated,
  'build.status_changed': LiveBuildStatusChanged,
  'build.updated': LiveBuildUpdated,
  'builds.deleted': LiveBuildsDeleted,
  'comment.created': LiveComment,
  'comment.deleted': LiveComment,
  'role.changed': LiveRoleChanged,
  'team.changed': LiveTeamChanged,
  'session.ended': LiveSessionEnded,
} as const;

export type LiveEventName = keyof typeof LIVE_EVENTS;

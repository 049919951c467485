import { ApiProperty, OmitType } from '@nestjs/swagger';
import { isoWithMillis, nullableIso } from '../common/time';
import { shownName, uploadUrl } from '../users/users.mapper';
import type { BuildEntity } from './build.entity';
import type { BuildStatusChangeEntity } from './build-status-change.entity';
import { BUILD_STATUSES, PLATFORMS, type BuildStatus, type Platform } from './build-status';

/** spec §2 Build. */
export class Build {
  @ApiProperty()
  id: number;
  @ApiProperty()
  app_id: number;
  @ApiProperty({ description: 'app name' })
  name: string;
  @ApiProperty({ type: String, nullable: true, example: '1.4.0' })
  version_name: string | null;
  @ApiProperty({ type: String, nullable: true, example: '42' })
  build_number: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'free-text label', example: 'feature/login' })
  version_label: string | null;
  @ApiProperty({ enum: BUILD_STATUSES, nullable: true, description: 'null when no status was given' })
  status_label: BuildStatus | null;
  @ApiProperty({ enum: PLATFORMS })
  platform: Platform;
  @ApiProperty({ example: 'com.example.app' })
  bundle_id: string;
  @ApiProperty({ format: 'date-time' })
  uploaded_at: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  completed_at: string | null;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'when the build files are purged; null when no deletion is scheduled',
  })
  delete_after: string | null;
}

/** spec §4 POST /builds response: the summary (no version_label, completed_at, delete_after). */
export class BuildSummary extends OmitType(Build, ['version_label', 'completed_at', 'delete_after'] as const) {}

/** GET /builds: one page and the count of every match. */
export class BuildList {
  @ApiProperty({ type: [Build] })
  items: Build[];
  @ApiProperty({ description: 'builds matching the filters, over all pages' })
  total: number;
}

/** POST /builds/:id/schedule-deletion. */
export class DeletionScheduled {
  @ApiProperty({ enum: [true], example: true })
  ok: true;
  @ApiProperty({ description: 'format YYYY-MM-DD HH:MM:SS', example: '2025-01-08 12:00:00' })
  delete_after: string;
}

export function toBuildSummary(build: BuildEntity): BuildSummary {
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  const { version_label, completed_at, delete_after, ...summary } = toBuildResponse(build);
  return summary;
}

export function toBuildResponse(build: BuildEntity): Build {
  return {
    id: build.id,
    app_id: build.appId,
    name: build.name,
    version_name: build.versionName,
    build_number: build.buildNumber,
    version_label: build.versionLabel,
    status_label: build.statusLabel,
    platform: build.platform,
    bundle_id: build.bundleId,
    uploaded_at: isoWithMillis(build.uploadedAt),
    completed_at: nullableIso(build.completedAt),
    delete_after: nullableIso(build.deleteAfter),
  };
}

/** Beyond the spec: one entry of GET /builds/:id/history (the first is the status at upload). */
export class BuildStatusChange {
  @ApiProperty()
  id: number;
  @ApiProperty({ enum: BUILD_STATUSES, nullable: true, description: 'null on the first entry (the upload) and when the status was unset' })
  from_status: BuildStatus | null;
  @ApiProperty({ enum: BUILD_STATUSES, nullable: true, description: 'null when the status was cleared (or the upload gave none)' })
  to_status: BuildStatus | null;
  @ApiProperty({ format: 'date-time' })
  changed_at: string;
  @ApiProperty({ type: Number, nullable: true, description: 'the member; null once their account was deleted' })
  changed_by_id: number | null;
  @ApiProperty({ description: 'display name, or the part of the e-mail before @ when none (kept after the account is deleted)' })
  changed_by: string;
  @ApiProperty({ type: String, nullable: true, description: 'null when no profile image' })
  changed_by_avatar_url: string | null;
}

export function toBuildStatusChange(entry: BuildStatusChangeEntity): BuildStatusChange {
  // The live account while it exists (a renamed member shows the new name), else what was kept.
  const who = entry.changedBy ?? { displayName: entry.changedByDisplayName, email: entry.changedByEmail };
  return {
    id: entry.id,
    from_status: entry.fromStatus,
    to_status: entry.toStatus,
    changed_at: isoWithMillis(entry.changedAt),
    changed_by_id: entry.changedById,
    changed_by: shownName(who),
    changed_by_avatar_url: uploadUrl(entry.changedBy?.avatarPath ?? null),
  };
}

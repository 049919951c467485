import { ApiProperty, OmitType } from '@nestjs/swagger';
import { isoWithMillis, nullableIso } from '../common/time';
import { shownName, uploadUrl } from '../users/users.mapper';
import type { BuildEntity } from './build.entity';
import type { UserEntity } from '../users/user.entity';
import type { ListedBuild } from './build-page';
import { BuildProvenance, toProvenance } from './provenance/provenance.mapper';
import type { BuildStatusChangeEntity } from './build-status-change.entity';
import { BUILD_STATUSES, type BuildStatus } from './build-status';
import { PLATFORMS, type Platform } from '../app-catalogue/platform';
import { ComparisonFlag } from './contents/build-comparison';

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
  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'beyond the spec: who uploaded the build (display name, or the part of the e-mail before @; a CI token counts as its owner); null for builds uploaded before the relay kept a status history',
  })
  uploaded_by: string | null;
  @ApiProperty({ type: Number, nullable: true, description: 'beyond the spec: the uploader\'s member id; null once their account was deleted, or with uploaded_by null' })
  uploaded_by_id: number | null;
  @ApiProperty({
    type: String,
    nullable: true,
    example: '/api/v1/builds/12/icon',
    description: 'beyond the spec: the launcher icon read at upload (GET /builds/:id/icon); null when the build has none',
  })
  icon_url: string | null;
  @ApiProperty({
    type: [ComparisonFlag],
    description:
      'beyond the spec: the flags of the comparison with the build before it (same app and platform), stored at upload under the app\'s settings of the moment; empty when none (docs/builds.md "Flagged builds")',
  })
  flags: ComparisonFlag[];
  @ApiProperty({
    type: BuildProvenance,
    nullable: true,
    description: 'beyond the spec: where the build came from (commit, branch, repository, pull request, CI run, changelog) as its upload said; null when it said nothing (docs/builds.md "Provenance")',
  })
  provenance: BuildProvenance | null;
}

/** Build fields beyond spec §2 (docs/builds.md "Uploader and icon", "Flagged builds", "Provenance"), left out of the upload response. */
const BEYOND_SPEC = ['uploaded_by', 'uploaded_by_id', 'icon_url', 'flags', 'provenance'] as const;

/** spec §4 POST /builds response: the summary (no version_label, completed_at, delete_after). */
export class BuildSummary extends OmitType(Build, ['version_label', 'completed_at', 'delete_after', ...BEYOND_SPEC] as const) {}

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
  return {
    id: build.id,
    app_id: build.appId,
    name: build.name,
    version_name: build.versionName,
    build_number: build.buildNumber,
    status_label: build.statusLabel,
    platform: build.platform,
    bundle_id: build.bundleId,
    uploaded_at: isoWithMillis(build.uploadedAt),
  };
}

/**
 * spec §2 Build in the spec's order, then the fields beyond it. One object literal: spreading a
 * shared part into it cost a slow object clone per item, most of a list page's mapping time.
 */
export function toBuildResponse({ build, uploader, hasIcon, flags, provenance }: ListedBuild): Build {
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
    uploaded_by: uploader ? shownName(uploader) : null,
    uploaded_by_id: uploader?.id ?? null,
    icon_url: hasIcon ? `/api/v1/builds/${build.id}/icon` : null,
    flags: flags ? (JSON.parse(flags) as ComparisonFlag[]) : [],
    provenance: toProvenance(provenance),
  };
}

/** The live account while it exists (a renamed member shows the new name), else what the entry kept. */
function authorOf(entry: BuildStatusChangeEntity): Pick<UserEntity, 'displayName' | 'email'> {
  return entry.changedBy ?? { displayName: entry.changedByDisplayName, email: entry.changedByEmail };
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
  const who = authorOf(entry);
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

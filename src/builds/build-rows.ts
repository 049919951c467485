import type { Platform } from '../app-catalogue/platform';
import { BuildEntity } from './build.entity';
import type { BuildStatus } from './build-status';

/** A build's columns as BuildEntity reads them (gate_state is never selected with the build). */
export const BUILD_COLUMNS = [
  'id',
  'app_id',
  'name',
  'version_name',
  'build_number',
  'version_label',
  'status_label',
  'platform',
  'bundle_id',
  'file_name',
  'original_name',
  'file_size',
  'uploaded_at',
  'completed_at',
  'delete_after',
] as const;

/** The columns a comparison reads of the builds it compares (ComparedBuild). */
export const COMPARED_BUILD_COLUMNS = ['id', 'app_id', 'platform', 'uploaded_at', 'version_name', 'build_number', 'status_label', 'file_name', 'file_size'] as const;

/** The build a comparison starts from: what the lookups of the one it compares with need. */
export type ComparedBuild = Pick<BuildEntity, 'id' | 'appId' | 'platform' | 'uploadedAt' | 'versionName' | 'buildNumber' | 'statusLabel' | 'fileName' | 'fileSize'>;

/** A builds row as the drivers return it (PostgreSQL gives bigint columns as strings). */
export interface BuildRow {
  id: number | string;
  app_id: number | string;
  name: string;
  version_name: string | null;
  build_number: string | null;
  version_label: string | null;
  status_label: BuildStatus | null;
  platform: Platform;
  bundle_id: string;
  file_name: string;
  original_name: string;
  file_size: number | string;
  uploaded_at: number | string;
  completed_at: number | string | null;
  delete_after: number | string | null;
}

export type ComparedBuildRow = Pick<BuildRow, (typeof COMPARED_BUILD_COLUMNS)[number]>;

/** Property → column of every field a statement may write (`app` is the relation, no column). */
export const BUILD_FIELD_COLUMNS = {
  id: 'id',
  appId: 'app_id',
  name: 'name',
  versionName: 'version_name',
  buildNumber: 'build_number',
  versionLabel: 'version_label',
  statusLabel: 'status_label',
  platform: 'platform',
  bundleId: 'bundle_id',
  fileName: 'file_name',
  originalName: 'original_name',
  fileSize: 'file_size',
  uploadedAt: 'uploaded_at',
  completedAt: 'completed_at',
  deleteAfter: 'delete_after',
  gateState: 'gate_state',
} as const satisfies Record<Exclude<keyof BuildEntity, 'app'>, string>;

const time = (value: number | string) => new Date(Number(value));
const nullableTime = (value: number | string | null) => (value == null ? null : time(value));

export function toComparedBuild(row: ComparedBuildRow): ComparedBuild {
  return Object.assign(new BuildEntity(), {
    id: Number(row.id),
    appId: Number(row.app_id),
    platform: row.platform,
    uploadedAt: time(row.uploaded_at),
    versionName: row.version_name,
    buildNumber: row.build_number,
    statusLabel: row.status_label,
    fileName: row.file_name,
    fileSize: Number(row.file_size),
  });
}

export function toBuild(row: BuildRow): BuildEntity {
  return Object.assign(new BuildEntity(), toComparedBuild(row), {
    name: row.name,
    versionLabel: row.version_label,
    bundleId: row.bundle_id,
    originalName: row.original_name,
    completedAt: nullableTime(row.completed_at),
    deleteAfter: nullableTime(row.delete_after),
  });
}

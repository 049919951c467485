import { isoWithMillis, nullableIso } from '../common/time';
import type { BuildEntity } from './build.entity';
import type { BuildStatus, Platform } from './build-status';

/** spec §2 Build. */
export interface BuildResponse {
  id: number;
  app_id: number;
  name: string;
  version_name: string | null;
  build_number: string | null;
  version_label: string | null;
  status_label: BuildStatus | null;
  platform: Platform;
  bundle_id: string;
  uploaded_at: string;
  completed_at: string | null;
  delete_after: string | null;
}

/** spec §4 POST /builds response: the summary (no version_label, completed_at, delete_after). */
export type BuildSummary = Omit<BuildResponse, 'version_label' | 'completed_at' | 'delete_after'>;

export function toBuildSummary(build: BuildEntity): BuildSummary {
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  const { version_label, completed_at, delete_after, ...summary } = toBuildResponse(build);
  return summary;
}

export function toBuildResponse(build: BuildEntity): BuildResponse {
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

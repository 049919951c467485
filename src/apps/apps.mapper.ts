import { isoWithMillis } from '../common/time';
import type { AppEntity } from './app.entity';
import type { AppWithLatestBuild } from './apps.repository';

/** spec §2 App, as listed by GET /apps (with the latest-build summary). */
export interface AppListItem {
  id: number;
  name: string;
  bundle_id_key: string;
  platform: AppEntity['platform'];
  created_at: string;
  latest_build_id: number | null;
  version_name: string | null;
  build_number: string | null;
  status_label: string | null;
  latest_uploaded_at: string | null;
}

export function toAppListItem({ app, latest }: AppWithLatestBuild): AppListItem {
  return {
    id: app.id,
    name: app.name,
    bundle_id_key: app.bundleIdKey,
    platform: app.platform,
    created_at: isoWithMillis(app.createdAt),
    latest_build_id: latest?.id ?? null,
    version_name: latest?.versionName ?? null,
    build_number: latest?.buildNumber ?? null,
    status_label: latest?.statusLabel ?? null,
    latest_uploaded_at: latest ? isoWithMillis(latest.uploadedAt) : null,
  };
}

import { ApiProperty } from '@nestjs/swagger';
import { isoWithMillis } from '../common/time';
import { APP_PLATFORMS, type AppPlatform } from '../app-catalogue/app.entity';
import type { AppEntity } from '../app-catalogue/app.entity';
import type { LatestBuild } from '../builds/build-page';

/** An app with its latest build (null when it has none). */
export interface AppWithLatestBuild {
  app: AppEntity;
  latest: LatestBuild | null;
}

/** spec §2 App, as listed by GET /apps (with the latest-build summary). */
export class AppListItem {
  @ApiProperty()
  id: number;
  @ApiProperty()
  name: string;
  @ApiProperty({ example: 'com.example.app' })
  bundle_id_key: string;
  @ApiProperty({ enum: APP_PLATFORMS })
  platform: AppPlatform;
  @ApiProperty({ format: 'date-time' })
  created_at: string;
  @ApiProperty({ type: Number, nullable: true, description: 'null when the app has no build' })
  latest_build_id: number | null;
  @ApiProperty({ type: String, nullable: true, description: 'of the latest build' })
  version_name: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'of the latest build' })
  build_number: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'review status of the latest build' })
  status_label: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'upload time of the latest build' })
  latest_uploaded_at: string | null;
  @ApiProperty({ description: 'beyond the spec: how many builds the app has (those scheduled for deletion included)' })
  build_count: number;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'beyond the spec: /api/v1/apps/:id/icon when one of its builds has a launcher icon, else null',
  })
  icon_url: string | null;
}

/** GET /apps. */
export class AppList {
  @ApiProperty({ type: [AppListItem] })
  items: AppListItem[];
}

/** POST /apps. */
export class AppCreated {
  @ApiProperty()
  id: number;
  @ApiProperty({ enum: [true], example: true })
  ok: true;
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
    build_count: latest?.buildCount ?? 0,
    icon_url: latest?.hasIcon ? `/api/v1/apps/${app.id}/icon` : null,
  };
}

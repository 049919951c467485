import { Injectable } from '@nestjs/common';
import { ErrorMessages } from '../common/errors/error-messages';
import { notFound } from '../common/errors/http-error';
import { MAX_ID } from '../common/validation/parse-id.pipe';
import { BuildEntity } from './build.entity';
import type { BuildStatusChangeEntity } from './build-status-change.entity';
import { BuildsRepository, LatestBuild } from './builds.repository';
import { DEFAULT_PAGE_SIZE, ListBuildsQuery, MAX_PAGE_SIZE } from './dto/list-builds.query';

/**
 * A build as GET /builds and GET /builds/:id show it: beyond the spec's fields, who uploaded it
 * (the first entry of its status history; null for builds older than the history) and whether it
 * has an icon (docs/builds.md "Uploader and icon in the build").
 */
export interface ListedBuild {
  build: BuildEntity;
  upload: BuildStatusChangeEntity | null;
  hasIcon: boolean;
}

/** Reading builds: one by id, or a filtered, sorted page with the total count. */
@Injectable()
export class BuildQueryService {
  constructor(private readonly builds: BuildsRepository) {}

  async get(id: number): Promise<BuildEntity> {
    const build = await this.builds.findById(id);
    if (!build) throw notFound(ErrorMessages.buildNotFound);
    return build;
  }

  /** One build with its uploader and icon; 404 when there is no such build. */
  async detail(id: number): Promise<ListedBuild> {
    const [listed] = await this.describe([await this.get(id)]);
    return listed;
  }

  /** Each app's latest build (apps without builds are absent). */
  latestPerApp(): Promise<LatestBuild[]> {
    return this.builds.latestPerApp();
  }

  /** The build's status history, oldest first; 404 when there is no such build. */
  async history(id: number): Promise<BuildStatusChangeEntity[]> {
    await this.get(id);
    return this.builds.historyOf(id);
  }

  async list(query: ListBuildsQuery): Promise<{ items: ListedBuild[]; total: number }> {
    // An app id no row can have (readId's rule) filters everything out, without asking the database.
    if (query.app_id !== undefined && query.app_id > MAX_ID) return { items: [], total: 0 };
    const page = await this.builds.findPage({
      page: query.page ?? 0,
      limit: Math.min(query.limit ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE),
      q: query.q?.trim() || undefined,
      platform: query.platform,
      status: query.status,
      appId: query.app_id,
      sort: query.sort ?? 'uploaded_at',
      dir: query.dir ?? 'desc',
    });
    return { items: await this.describe(page.items), total: page.total };
  }

  /** Two small queries for the whole page (by primary key and the history's build_id index), not two per build. */
  private async describe(builds: BuildEntity[]): Promise<ListedBuild[]> {
    const ids = builds.map((build) => build.id);
    const [uploads, withIcon] = await Promise.all([this.builds.uploadEntriesOf(ids), this.builds.withIcon(ids)]);
    return builds.map((build) => ({ build, upload: uploads.get(build.id) ?? null, hasIcon: withIcon.has(build.id) }));
  }
}

import { Injectable } from '@nestjs/common';
import { ErrorMessages } from '../common/errors/error-messages';
import { notFound } from '../common/errors/relay-exception';
import { BuildEntity } from './build.entity';
import { BuildsRepository } from './builds.repository';
import { DEFAULT_PAGE_SIZE, ListBuildsQuery, MAX_PAGE_SIZE } from './dto/list-builds.query';

/** Reading builds: one by id, or a filtered, sorted page with the total count. */
@Injectable()
export class BuildQueryService {
  constructor(private readonly builds: BuildsRepository) {}

  async get(id: number): Promise<BuildEntity> {
    const build = await this.builds.findById(id);
    if (!build) throw notFound(ErrorMessages.buildNotFound);
    return build;
  }

  list(query: ListBuildsQuery): Promise<{ items: BuildEntity[]; total: number }> {
    return this.builds.findPage({
      page: query.page ?? 0,
      limit: Math.min(query.limit ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE),
      q: query.q?.trim() || undefined,
      platform: query.platform,
      status: query.status,
      appId: query.app_id,
      sort: query.sort ?? 'uploaded_at',
      dir: query.dir ?? 'desc',
    });
  }
}

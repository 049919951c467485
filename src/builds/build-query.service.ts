import { Injectable } from '@nestjs/common';
import { ErrorMessages } from '../common/errors/error-messages';
import { notFound } from '../common/errors/http-error';
import { MAX_ID } from '../common/validation/parse-id.pipe';
import { BuildEntity } from './build.entity';
import type { BuildStatusChangeEntity } from './build-status-change.entity';
import type { LatestBuild, ListedBuild } from './build-page';
import { BuildsRepository } from './builds.repository';
import { DEFAULT_PAGE_SIZE, ListBuildsQuery, MAX_PAGE_SIZE } from './dto/list-builds.query';
import type { BuildProvenanceEntity } from './provenance/build-provenance.entity';
import { BuildProvenanceRepository } from './provenance/build-provenance.repository';

export type { ListedBuild } from './build-page';

/** Reading builds: one by id, or a filtered, sorted page with the total count. */
@Injectable()
export class BuildQueryService {
  constructor(
    private readonly builds: BuildsRepository,
    private readonly provenance: BuildProvenanceRepository,
  ) {}

  async get(id: number): Promise<BuildEntity> {
    const build = await this.builds.findById(id);
    if (!build) throw notFound(ErrorMessages.buildNotFound);
    return build;
  }

  /** One build with its uploader, icon, flags and provenance; 404 when there is no such build. */
  async detail(id: number): Promise<ListedBuild> {
    const listed = await this.builds.findListed(id);
    if (!listed) throw notFound(ErrorMessages.buildNotFound);
    return listed;
  }

  /** Where a build came from (null when its upload said nothing, or there is no such build). */
  provenanceOf(id: number): Promise<BuildProvenanceEntity | null> {
    return this.provenance.of(id);
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

  /** One page of the list (filtered and sorted) and the count of every match. */
  list(query: ListBuildsQuery): Promise<{ items: ListedBuild[]; total: number }> {
    // An app id no row can have (readId's rule) filters everything out, without asking the database.
    if (query.app_id !== undefined && query.app_id > MAX_ID) return Promise.resolve({ items: [], total: 0 });
    return this.builds.findPage({
      page: query.page ?? 0,
      limit: Math.min(query.limit ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE),
      q: query.q?.trim() || undefined,
      searchTerms: searchTerms(query.search),
      platform: query.platform,
      status: query.status,
      appId: query.app_id,
      flagged: query.flagged === 'true',
      branch: query.branch || undefined,
      commit: query.commit?.toLowerCase(),
      pullRequest: query.pull_request,
      gate: query.gate,
      sort: query.sort ?? 'uploaded_at',
      dir: query.dir ?? 'desc',
    });
  }
}

/** The search's terms: split on whitespace, each matched on its own (none for a blank search). */
function searchTerms(search: string | undefined): string[] | undefined {
  const terms = search?.split(/\s+/).filter(Boolean);
  return terms?.length ? terms : undefined;
}

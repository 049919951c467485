import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, MoreThan, Repository } from 'typeorm';
import { BuildEntity } from '../build.entity';
import { BuildStatusChangeEntity } from '../build-status-change.entity';
import { BuildProvenanceEntity } from './build-provenance.entity';

/** The reads behind BuildVerdictsService: the status history as a feed, builds by provenance. */
@Injectable()
export class BuildVerdictsRepository {
  constructor(
    @InjectRepository(BuildStatusChangeEntity) private readonly changes: Repository<BuildStatusChangeEntity>,
    @InjectRepository(BuildProvenanceEntity) private readonly provenance: Repository<BuildProvenanceEntity>,
    @InjectRepository(BuildEntity) private readonly builds: Repository<BuildEntity>,
  ) {}

  /** Status-history entries after `afterId`, oldest first. */
  async changesAfter(afterId: number, limit: number): Promise<{ id: number; buildId: number }[]> {
    const rows = await this.changes.find({ where: { id: MoreThan(afterId) }, select: { id: true, buildId: true }, order: { id: 'ASC' }, take: limit });
    return rows.map((row) => ({ id: row.id, buildId: row.buildId }));
  }

  async lastChangeId(): Promise<number> {
    const [row] = await this.changes.find({ select: { id: true }, order: { id: 'DESC' }, take: 1 });
    return row?.id ?? 0;
  }

  /** The build's history entries with their authors, oldest first (`newestFirst`: newest first), at most `take`. */
  changesOf(buildId: number, take: number, newestFirst = false): Promise<BuildStatusChangeEntity[]> {
    return this.changes.find({ where: { buildId }, relations: { changedBy: true }, order: { id: newestFirst ? 'DESC' : 'ASC' }, take });
  }

  provenanceOf(buildId: number): Promise<BuildProvenanceEntity | null> {
    return this.provenance.findOneBy({ buildId });
  }

  provenanceWhere(where: { repository: string; commit?: string; pullRequest?: number }): Promise<BuildProvenanceEntity[]> {
    return this.provenance.find({ where, order: { buildId: 'ASC' } });
  }

  build(id: number): Promise<BuildEntity | null> {
    return this.builds.findOneBy({ id });
  }

  buildsWithIds(ids: number[]): Promise<BuildEntity[]> {
    return this.builds.find({ where: { id: In(ids) } });
  }

  /** The newest Done build of the same app and platform before `build`, from `repository`, with a commit. */
  async lastDoneWithCommit(build: BuildEntity, repository: string): Promise<{ buildId: number; commit: string } | null> {
    const row = await this.builds
      .createQueryBuilder('b')
      .innerJoin(BuildProvenanceEntity, 'p', 'p.build_id = b.id')
      .select('b.id', 'id')
      .addSelect('p.commit_sha', 'commit')
      .where('b.app_id = :appId AND b.platform = :platform AND b.id < :id', { appId: build.appId, platform: build.platform, id: build.id })
      .andWhere("b.status_label = 'Done' AND p.repository = :repository AND p.commit_sha IS NOT NULL", { repository })
      .orderBy('b.id', 'DESC')
      .limit(1)
      .getRawOne<{ id: number | string; commit: string }>();
    return row ? { buildId: Number(row.id), commit: row.commit } : null;
  }
}

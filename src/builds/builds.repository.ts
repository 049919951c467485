import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, In, Repository } from 'typeorm';
import { AtOrBefore } from '../database/timestamp.column';
import { TransactionRunner } from '../database/transaction-runner';
import { BuildEntity } from './build.entity';
import type { BuildStatus, Platform } from './build-status';

export type BuildSortField = 'uploaded_at' | 'version_name' | 'status_label';

export interface BuildPageQuery {
  page: number;
  limit: number;
  q?: string;
  platform?: Platform;
  status?: BuildStatus;
  appId?: number;
  sort: BuildSortField;
  dir: 'asc' | 'desc';
}

const SORT_COLUMNS: Record<BuildSortField, string> = {
  uploaded_at: 'b.uploaded_at',
  version_name: 'b.version_name',
  status_label: 'b.status_label',
};

/** Builds' rows. Multi-step writes go through the shared TransactionRunner (one at a time on SQLite). */
@Injectable()
export class BuildsRepository {
  constructor(
    @InjectRepository(BuildEntity) private readonly builds: Repository<BuildEntity>,
    private readonly transactions: TransactionRunner,
  ) {}

  /** Runs `work` in a transaction of the shared runner. */
  inWriteTransaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.transactions.run(work);
  }

  insert(values: Omit<BuildEntity, 'id' | 'app'>, manager: EntityManager): Promise<BuildEntity> {
    const repo = manager.getRepository(BuildEntity);
    return repo.save(repo.create(values));
  }

  findById(id: number): Promise<BuildEntity | null> {
    return this.builds.findOne({ where: { id } });
  }

  async findPage(query: BuildPageQuery): Promise<{ items: BuildEntity[]; total: number }> {
    const qb = this.builds.createQueryBuilder('b');
    // LOWER() folds ASCII letters only on SQLite (and on PostgreSQL's COLLATE "C" column): fold the term the same way.
    if (query.q) qb.andWhere("LOWER(b.version_name) LIKE :q ESCAPE '\\'", { q: `%${escapeLike(asciiLowerCase(query.q))}%` });
    if (query.platform) qb.andWhere('b.platform = :platform', { platform: query.platform });
    if (query.status) qb.andWhere('b.status_label = :status', { status: query.status });
    if (query.appId !== undefined) qb.andWhere('b.app_id = :appId', { appId: query.appId });
    const dir = query.dir === 'asc' ? 'ASC' : 'DESC';
    // Unset values sort last either way, on SQLite and PostgreSQL alike; id breaks ties so pages are stable.
    qb.orderBy(SORT_COLUMNS[query.sort], dir, 'NULLS LAST').addOrderBy('b.id', dir);
    qb.skip(query.page * query.limit).take(query.limit);
    const [items, total] = await qb.getManyAndCount();
    return { items, total };
  }

  /** Applies `changes` and returns the row before and after, or null when there is no such build. */
  update(
    id: number,
    change: (build: BuildEntity) => Partial<BuildEntity>,
  ): Promise<{ before: BuildEntity; after: BuildEntity } | null> {
    return this.inWriteTransaction(async (manager) => {
      const repo = manager.getRepository(BuildEntity);
      const before = await repo.findOne({ where: { id } });
      if (!before) return null;
      const values = change(before);
      if (Object.keys(values).length) await repo.update({ id }, values);
      return { before, after: Object.assign(new BuildEntity(), before, values) };
    });
  }

  dueForPurge(now: Date): Promise<Pick<BuildEntity, 'id' | 'fileName'>[]> {
    return this.builds.find({ where: { deleteAfter: AtOrBefore(now) }, select: { id: true, fileName: true } });
  }

  allFiles(): Promise<Pick<BuildEntity, 'id' | 'fileName'>[]> {
    return this.builds.find({ select: { id: true, fileName: true } });
  }

  /** Deletes these rows in one transaction; returns the ones that were still there. */
  deleteByIds(ids: number[]): Promise<Pick<BuildEntity, 'id' | 'fileName'>[]> {
    if (!ids.length) return Promise.resolve([]);
    return this.inWriteTransaction(async (manager) => {
      const repo = manager.getRepository(BuildEntity);
      const present = await repo.find({ where: { id: In(ids) }, select: { id: true, fileName: true } });
      if (present.length) await repo.delete({ id: In(present.map((b) => b.id)) });
      return present;
    });
  }
}

function asciiLowerCase(text: string): string {
  return text.replace(/[A-Z]/g, (c) => c.toLowerCase());
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

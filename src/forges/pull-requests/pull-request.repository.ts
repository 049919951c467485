import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { AtOrBefore } from '../../database/timestamp.column';
import { isUniqueViolation } from '../../database/unique-violation';
import { ForgePullRequestEntity } from './pull-request.entity';

/** forge_pull_requests (the forges module owns it). */
@Injectable()
export class ForgePullRequestRepository {
  constructor(@InjectRepository(ForgePullRequestEntity) private readonly rows: Repository<ForgePullRequestEntity>) {}

  /** Asks for the comment to be written again (created on first use). */
  async touch(repository: string, number: number, now: Date): Promise<void> {
    const existing = await this.rows.findOneBy({ repository, number });
    if (existing) {
      await this.rows.increment({ id: existing.id }, 'version', 1);
      await this.rows.update({ id: existing.id }, { status: 'queued', nextAttemptAt: now, attempts: 0, lastError: null });
      return;
    }
    try {
      await this.rows.insert({ repository, number, commentId: null, installLinks: '{}', status: 'queued', version: 1, attempts: 0, nextAttemptAt: now, lastError: null });
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      await this.touch(repository, number, now);
    }
  }

  due(now: Date, limit: number): Promise<ForgePullRequestEntity[]> {
    return this.rows.find({ where: { status: 'queued', nextAttemptAt: AtOrBefore(now) }, order: { id: 'ASC' }, take: limit });
  }

  find(repository: string, number: number): Promise<ForgePullRequestEntity | null> {
    return this.rows.findOneBy({ repository, number });
  }

  /** Keeps what the forge now holds (comment id, links); settles the queue state only if nobody asked again meanwhile. */
  async written(row: ForgePullRequestEntity, commentId: string, installLinks: string): Promise<void> {
    await this.rows.update({ id: row.id }, { commentId, installLinks });
    await this.rows.update({ id: row.id, version: row.version }, { status: 'delivered', attempts: row.attempts + 1, lastError: null });
  }

  async keepLinks(id: number, installLinks: string): Promise<void> {
    await this.rows.update({ id }, { installLinks });
  }

  async failed(row: ForgePullRequestEntity, error: string, retryAt: Date | null): Promise<void> {
    await this.rows.update(
      { id: row.id, version: row.version },
      retryAt ? { attempts: row.attempts + 1, lastError: error, nextAttemptAt: retryAt } : { status: 'failed', attempts: row.attempts + 1, lastError: error },
    );
  }
}

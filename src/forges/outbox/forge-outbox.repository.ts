import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, MoreThan, Repository } from 'typeorm';
import { TransactionRunner } from '../../database/transaction-runner';
import { AtOrBefore } from '../../database/timestamp.column';
import type { DesiredStatus } from '../status/commit-status';
import { ForgeDeliveryEntity, ForgeFeedEntity, ForgeStatusEntity } from './forge-status.entity';

/** The feed's one row: how far the builds' status history has been read. */
const FEED = 'status_changes';

/** The forges module's tables: the outbox, its delivery log and the feed's cursor. */
@Injectable()
export class ForgeOutboxRepository {
  constructor(
    @InjectRepository(ForgeStatusEntity) private readonly outbox: Repository<ForgeStatusEntity>,
    @InjectRepository(ForgeDeliveryEntity) private readonly deliveries: Repository<ForgeDeliveryEntity>,
    @InjectRepository(ForgeFeedEntity) private readonly feed: Repository<ForgeFeedEntity>,
    private readonly transactions: TransactionRunner,
  ) {}

  /** The feed's position, or null before the first start with a forge. */
  async cursor(): Promise<number | null> {
    return (await this.feed.findOneBy({ name: FEED }))?.lastId ?? null;
  }

  async startCursor(at: number): Promise<void> {
    await this.feed.insert({ name: FEED, lastId: at });
  }

  /**
   * In one transaction: each status whose key's newest row says something else is queued (older
   * queued rows of its key superseded), and the cursor moves from `from` to `to`. The cursor and
   * the statuses commit together, so a crash leaves either both or neither.
   */
  async enqueue(
    statuses: { repository: string; commit: string; status: DesiredStatus }[],
    move: { from: number; to: number } | null,
    now: Date,
  ): Promise<number> {
    return this.transactions.run(async (manager) => {
      const rows = manager.getRepository(ForgeStatusEntity);
      let queued = 0;
      for (const { repository, commit, status } of statuses) {
        const key = { repository, commit, context: status.context };
        const [newest] = await rows.find({ where: { ...key, status: In(['queued', 'delivered']) }, order: { id: 'DESC' }, take: 1 });
        if (newest && newest.state === status.state && newest.description === status.description && newest.targetUrl === status.targetUrl) continue;
        await rows.update({ ...key, status: 'queued' }, { status: 'superseded' });
        await rows.insert({
          ...key,
          buildId: status.buildId,
          state: status.state,
          description: status.description,
          targetUrl: status.targetUrl,
          summary: status.summary,
          status: 'queued',
          attempts: 0,
          nextAttemptAt: now,
          lastError: null,
          createdAt: now,
          deliveredAt: null,
        });
        queued++;
      }
      if (move) {
        const moved = await manager.getRepository(ForgeFeedEntity).update({ name: FEED, lastId: move.from }, { lastId: move.to });
        if (moved.affected !== 1) throw new Error(`forge feed cursor moved under us (expected ${move.from})`);
      }
      return queued;
    });
  }

  /** Queued statuses due by `now`, oldest first. */
  due(now: Date, limit: number): Promise<ForgeStatusEntity[]> {
    return this.outbox.find({ where: { status: 'queued', nextAttemptAt: AtOrBefore(now) }, order: { id: 'ASC' }, take: limit });
  }

  /** Whether a newer status of the same key is queued or was delivered: then this one must never be sent. */
  async isOvertaken(row: ForgeStatusEntity): Promise<boolean> {
    const newer = await this.outbox.count({
      where: { repository: row.repository, commit: row.commit, context: row.context, id: MoreThan(row.id), status: In(['queued', 'delivered']) },
    });
    return newer > 0;
  }

  async settle(id: number, change: Partial<Pick<ForgeStatusEntity, 'status' | 'attempts' | 'nextAttemptAt' | 'lastError' | 'deliveredAt'>>): Promise<void> {
    // Only a row still queued: one superseded meanwhile stays superseded.
    await this.outbox.update({ id, status: 'queued' }, change);
  }

  async logAttempt(entry: Omit<ForgeDeliveryEntity, 'id'>): Promise<void> {
    await this.deliveries.insert(entry);
  }

  /** The newest statuses with their attempts (the dashboard's delivery log), newest first. */
  recent(limit: number): Promise<ForgeStatusEntity[]> {
    return this.outbox.find({ order: { id: 'DESC' }, take: limit });
  }

  /**
   * A test status's one attempt, kept like any other: a row not queued (delivered or failed), so
   * the sender never touches it, with its attempt in the forge's delivery log; in one transaction.
   */
  recordTest(status: Omit<ForgeStatusEntity, 'id'>, attempt: Omit<ForgeDeliveryEntity, 'id' | 'outboxId'>): Promise<void> {
    return this.transactions.run(async (manager) => {
      const { identifiers } = await manager.getRepository(ForgeStatusEntity).insert(status);
      await manager.getRepository(ForgeDeliveryEntity).insert({ ...attempt, outboxId: identifiers[0].id as number });
    });
  }

  /** One forge's newest attempts, newest first (its delivery log). */
  attemptsOfForge(forgeKey: string, limit: number): Promise<ForgeDeliveryEntity[]> {
    return this.deliveries.find({ where: { forgeKey }, order: { id: 'DESC' }, take: limit });
  }

  statusesById(ids: number[]): Promise<ForgeStatusEntity[]> {
    return ids.length ? this.outbox.findBy({ id: In(ids) }) : Promise.resolve([]);
  }

  /** A deleted forge's delivery log goes with it (the statuses stay: they belong to their commits). */
  async forgetForge(forgeKey: string): Promise<void> {
    await this.deliveries.delete({ forgeKey });
  }

  attemptsOf(outboxIds: number[]): Promise<ForgeDeliveryEntity[]> {
    if (!outboxIds.length) return Promise.resolve([]);
    return this.deliveries.find({ where: { outboxId: In(outboxIds) }, order: { id: 'ASC' } });
  }
}

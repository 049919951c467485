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
   * In one transaction: each status whose key's newest row says something else, and (with
   * `gateVersions`) was not made from an older gate than that row, is queued (older
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
        // Versioned statuses: instances queue the key one at a time (until the commit), so the check below holds.
        if (status.gateVersions && manager.connection.options.type === 'postgres') {
          await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`svc.forge_status.${repository}.${commit}.${status.context}`]);
        }
        const [newest] = await rows.find({ where: { ...key, status: In(['queued', 'delivered']) }, order: { id: 'DESC' }, take: 1 });
        if (newest && status.gateVersions && isOlder(status.gateVersions, newest.gateVersions)) continue;
        if (newest && newest.state === status.state && newest.description === status.description && newest.targetUrl === status.targetUrl) {
          // Same words from newer gates: the row now stands for them, so a status from the gates between stays refused.
          if (status.gateVersions) await rows.update({ id: newest.id }, { gateVersions: JSON.stringify(newestOf(status.gateVersions, newest.gateVersions)) });
          continue;
        }
        await rows.update({ ...key, status: 'queued' }, { status: 'superseded' });
        await rows.insert({
          ...key,
          buildId: status.buildId,
          state: status.state,
          description: status.description,
          targetUrl: status.targetUrl,
          summary: status.summary,
          gateVersions: status.gateVersions ? JSON.stringify(status.gateVersions) : null,
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

/**
 * Whether a status made from these gate versions is older than one made from `newest`'s: some build's
 * gate is at an earlier version. Each status reads its builds' versions in one statement, so two of them
 * are ordered build by build; builds only one of them knows (uploaded or deleted between) say nothing.
 */
export function isOlder(versions: Record<number, number>, newest: string | null): boolean {
  if (!newest) return false;
  const held = JSON.parse(newest) as Record<string, number>;
  return Object.entries(versions).some(([buildId, version]) => buildId in held && version < held[buildId]);
}

/** Build by build, the higher of the two versions. */
function newestOf(versions: Record<number, number>, held: string | null): Record<string, number> {
  const merged: Record<string, number> = held ? (JSON.parse(held) as Record<string, number>) : {};
  for (const [buildId, version] of Object.entries(versions)) merged[buildId] = Math.max(version, merged[buildId] ?? 0);
  return merged;
}

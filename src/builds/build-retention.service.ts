import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { Clock } from '../common/clock';
import { HOUR_MS } from '../common/time';
import { TransactionRunner } from '../database/transaction-runner';
import { BuildsRepository } from './builds.repository';
import { BuildsDeletedEvent } from './events/builds-deleted.event';
import { BuildFiles } from './build-files';
import { StoredFileOwners } from '../storage/stored-file-owners';
import { RelayConfig } from '../config/relay-config';
import { BuildFileSweep, type BuildFileSweepOutcome } from './build-file-sweep';

/** Rows deleted per transaction by the purge. */
const PURGE_BATCH = 500;

/**
 * Removes builds whose deletion time has come, and reconciles the builds folder with the table.
 * Rows go first, then files: a crash in between leaves only unreferenced files, which
 * sweepOrphans() removes (at start-up, and with a grace period on every run so uploads being
 * committed right now are never touched). The sweep starts with the relay but does not hold its start.
 */
@Injectable()
export class BuildRetentionService implements OnModuleInit {
  private readonly logger = new Logger('Builds');
  constructor(
    private readonly builds: BuildsRepository,
    private readonly clock: Clock,
    private readonly events: EventEmitter2,
    private readonly files: BuildFiles,
    private readonly transactions: TransactionRunner,
    private readonly owners: StoredFileOwners,
    private readonly config: RelayConfig,
    private readonly sweep: BuildFileSweep,
  ) {}

  /**
   * The builds folder's sweep runs every minute, sparing files younger than an hour (a large upload
   * is stored before its row is inserted); it is its own, since it also drops rows whose file is gone.
   */
  onModuleInit(): void {
    // Off (SVC_BUILD_FILE_SWEEP=false) only where rows are written without files: bench/million.
    if (!this.config.buildFileSweep) return void this.logger.warn('The builds folder sweep is off (SVC_BUILD_FILE_SWEEP=false)');
    this.owners.register({
      orphans: 'orphan build files',
      every: 'minute',
      graceMs: HOUR_MS,
      inBackground: true,
      sweepOrphans: (g) => this.sweepOrphans(g),
    });
  }

  /** Deletes every build whose delete_after has passed: rows, then files. Returns how many. */
  async purgeDue(): Promise<number> {
    const due = await this.builds.dueForPurge(this.clock.now());
    let purged = 0;
    for (let i = 0; i < due.length; i += PURGE_BATCH) {
      const deleted = await this.builds.deleteByIds(due.slice(i, i + PURGE_BATCH).map((b) => b.id));
      if (!deleted.length) continue;
      purged += deleted.length;
      this.events.emit(BuildsDeletedEvent.eventName, new BuildsDeletedEvent(deleted.map((b) => b.id), 'purged'));
      await this.files.remove(deleted.map((b) => b.fileName));
    }
    if (purged) this.logger.log(`Purged ${purged} build(s) past their deletion time`);
    return purged;
  }

  /**
   * Deletes every build of an app, inside the caller's transaction (the app's deletion): rows now;
   * the event and the files once that transaction has committed, so a rollback keeps both.
   */
  async deleteAllOfApp(appId: number): Promise<number> {
    const deleted = await this.builds.deleteByApp(appId);
    if (deleted.length) {
      await this.transactions.afterCommit(async () => {
        this.events.emit(BuildsDeletedEvent.eventName, new BuildsDeletedEvent(deleted.map((b) => b.id), 'app_deleted'));
        await this.files.remove(deleted.map((b) => b.fileName));
      });
    }
    return deleted.length;
  }

  /**
   * Files in the builds folder that no row references (older than `graceMs`) are removed; rows
   * whose file is missing are deleted (they could never be downloaded or installed again). In
   * slices, yielding between them (BuildFileSweep): a million builds cost no more memory than a few.
   */
  sweepOrphans(graceMs: number): Promise<BuildFileSweepOutcome> {
    return this.sweep.run(graceMs);
  }
}

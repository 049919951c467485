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

/** Rows deleted per transaction by the purge. */
const PURGE_BATCH = 500;

/**
 * Removes builds whose deletion time has come, and reconciles the builds folder with the table.
 * Rows go first, then files: a crash in between leaves only unreferenced files, which
 * sweepOrphans() removes (at start-up, and with a grace period on every run so uploads being
 * committed right now are never touched).
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
  ) {}

  /**
   * The builds folder's sweep runs every minute, sparing files younger than an hour (a large upload
   * is stored before its row is inserted); it is its own, since it also drops rows whose file is gone.
   */
  onModuleInit(): void {
    // Off (SVC_BUILD_FILE_SWEEP=false) only where rows are written without files: bench/million.
    if (!this.config.buildFileSweep) return void this.logger.warn('The builds folder sweep is off (SVC_BUILD_FILE_SWEEP=false)');
    this.owners.register({ orphans: 'orphan build files', every: 'minute', graceMs: HOUR_MS, sweepOrphans: (g) => this.sweepOrphans(g) });
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
   * whose file is missing are deleted (they could never be downloaded or installed again).
   */
  async sweepOrphans(graceMs: number): Promise<{ files: number; rows: number }> {
    // Rows first, then the folder: a build committed in between has its file in place already.
    // Only names no row references are stat-ed (for their age), so a sweep costs one directory
    // read and one index scan however many builds there are.
    const rows = await this.builds.allFiles();
    const referenced = new Set(rows.map((r) => r.fileName));
    const present = await this.files.names();
    const cutoff = Date.now() - graceMs;
    const unreferenced: string[] = [];
    for (const name of present) {
      if (referenced.has(name)) continue;
      const modifiedMs = await this.files.modifiedMs(name);
      if (modifiedMs !== null && modifiedMs <= cutoff) unreferenced.push(name);
    }
    await this.files.remove(unreferenced);

    // A row whose file was not listed: look again for that one file before deleting the row.
    const stillMissing: number[] = [];
    for (const row of rows) {
      if (!present.has(row.fileName) && (await this.files.modifiedMs(row.fileName)) === null) stillMissing.push(row.id);
    }
    const deleted = await this.builds.deleteByIds(stillMissing);
    if (deleted.length) {
      this.events.emit(BuildsDeletedEvent.eventName, new BuildsDeletedEvent(deleted.map((b) => b.id), 'file_missing'));
    }
    if (unreferenced.length || deleted.length) {
      this.logger.warn(`Orphan sweep removed ${unreferenced.length} unreferenced file(s) and ${deleted.length} row(s) without a file`);
    }
    return { files: unreferenced.length, rows: deleted.length };
  }
}

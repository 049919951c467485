import { Injectable, Logger } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { Clock } from '../common/clock';
import { StoragePaths } from '../common/storage/storage-paths';
import { BuildsRepository } from './builds.repository';
import { BuildsDeletedEvent } from './events/builds-deleted.event';
import { BuildFiles } from './storage/build-files';

/** Rows deleted per transaction by the purge. */
const PURGE_BATCH = 500;

/**
 * Removes builds whose deletion time has come, and reconciles the builds folder with the table.
 * Rows go first, then files: a crash in between leaves only unreferenced files, which
 * sweepOrphans() removes (at start-up, and with a grace period on every run so uploads being
 * committed right now are never touched).
 */
@Injectable()
export class BuildRetentionService {
  private readonly logger = new Logger('Builds');
  private readonly files: BuildFiles;

  constructor(
    private readonly builds: BuildsRepository,
    private readonly clock: Clock,
    private readonly events: EventEmitter2,
    paths: StoragePaths,
  ) {
    this.files = new BuildFiles(paths);
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
   * Files in the builds folder that no row references (older than `graceMs`) are removed; rows
   * whose file is missing are deleted (they could never be downloaded or installed again).
   */
  async sweepOrphans(graceMs: number): Promise<{ files: number; rows: number }> {
    const rows = await this.builds.allFiles();
    const referenced = new Set(rows.map((r) => r.fileName));
    const present = await this.files.list();
    const cutoff = Date.now() - graceMs;
    const unreferenced = present.filter((f) => !referenced.has(f.name) && f.modifiedMs <= cutoff).map((f) => f.name);
    await this.files.remove(unreferenced);

    const onDisk = new Set(present.map((f) => f.name));
    const missing = new Set(rows.filter((r) => !onDisk.has(r.fileName)).map((r) => r.id));
    // A row inserted after the listing above has its file by now; re-check before deleting.
    const stillMissing = (await this.builds.allFiles()).filter((r) => missing.has(r.id));
    const nowPresent = new Set((await this.files.list()).map((f) => f.name));
    const deleted = await this.builds.deleteByIds(stillMissing.filter((r) => !nowPresent.has(r.fileName)).map((r) => r.id));
    if (deleted.length) {
      this.events.emit(BuildsDeletedEvent.eventName, new BuildsDeletedEvent(deleted.map((b) => b.id), 'file_missing'));
    }
    if (unreferenced.length || deleted.length) {
      this.logger.warn(`Orphan sweep removed ${unreferenced.length} unreferenced file(s) and ${deleted.length} row(s) without a file`);
    }
    return { files: unreferenced.length, rows: deleted.length };
  }
}

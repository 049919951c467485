import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { BuildFiles } from './build-files';
import { BuildsRepository, FILE_NAME_SLICE } from './builds.repository';
import { BuildsDeletedEvent } from './events/builds-deleted.event';

/** Ids per range of the rows' pass: one count by the primary key, the rows themselves only when it differs. */
const ID_RANGE = 1024;

/** What one sweep removed. */
export interface BuildFileSweepOutcome {
  files: number;
  rows: number;
}

/**
 * The builds folder reconciled with the builds table in slices, so that its work between two turns
 * of the event loop and its memory do not grow with the number of builds (a million builds held
 * the whole table and listing in memory: 940 MB, seconds without an answer, bench/results/2026-11-27-665943d-million.md).
 *
 * 1. The folder is walked as a stream; each slice of FILE_NAME_SLICE names is looked up in the
 *    table by the unique index on file_name. Names no row references are stat-ed for their age,
 *    and those modified before the cutoff are removed. Each referenced row's id is marked in a
 *    bitmap (one bit per id: 125 kB at a million builds).
 * 2. The ids up to the highest one read before the walk (their files were stored before it began:
 *    a file is stored before its row is inserted) are counted range by range by the primary key;
 *    a range with more rows than marks is read, and each unmarked row's file is looked for again
 *    before the row is deleted ('file_missing').
 * Rows deleted or inserted meanwhile only make a range be read again (every deletion still rests
 * on a fresh look for the file), or hide a missing file until the next sweep.
 */
@Injectable()
export class BuildFileSweep implements OnModuleDestroy {
  private readonly logger = new Logger('Builds');
  private readonly running = new Set<Promise<unknown>>();
  private stopping = false;

  constructor(
    private readonly builds: BuildsRepository,
    private readonly files: BuildFiles,
    private readonly events: EventEmitter2,
  ) {}

  /** Sweeps once, sparing files modified less than `graceMs` ago (the cutoff is taken now). */
  run(graceMs: number): Promise<BuildFileSweepOutcome> {
    const sweep = this.sweep(Date.now() - graceMs);
    this.running.add(sweep);
    const forget = () => void this.running.delete(sweep);
    sweep.then(forget, forget);
    return sweep;
  }

  /** A sweep still running at shutdown stops at its next slice, before the database closes. */
  async onModuleDestroy(): Promise<void> {
    this.stopping = true;
    await Promise.allSettled([...this.running]);
  }

  private async sweep(cutoffMs: number): Promise<BuildFileSweepOutcome> {
    const started = performance.now();
    const maxId = await this.builds.maxId();
    const marked = new IdMarks(maxId);
    const files = await this.removeUnreferencedFiles(cutoffMs, marked);
    // A walk cut short by shutdown marked too few rows: every range would be read for nothing.
    const rows = this.stopping ? 0 : await this.removeRowsWithoutFiles(maxId, marked);
    if (files || rows) {
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      this.logger.warn(`Orphan sweep removed ${files} unreferenced file(s) and ${rows} row(s) without a file (${seconds} s)`);
    }
    return { files, rows };
  }

  private async removeUnreferencedFiles(cutoffMs: number, marked: IdMarks): Promise<number> {
    let removed = 0;
    let slice: string[] = [];
    for await (const name of this.files.names()) {
      if (this.stopping) break;
      slice.push(name);
      if (slice.length < FILE_NAME_SLICE) continue;
      removed += await this.removeUnreferencedOf(slice, cutoffMs, marked);
      slice = [];
      await nextTurn();
    }
    if (slice.length && !this.stopping) removed += await this.removeUnreferencedOf(slice, cutoffMs, marked);
    return removed;
  }

  private async removeUnreferencedOf(names: string[], cutoffMs: number, marked: IdMarks): Promise<number> {
    const referenced = new Set<string>();
    for (const row of await this.builds.withFileNames(names)) {
      referenced.add(row.fileName);
      marked.mark(row.id);
    }
    const orphans: string[] = [];
    for (const name of names) {
      if (referenced.has(name)) continue;
      const modifiedMs = await this.files.modifiedMs(name);
      if (modifiedMs !== null && modifiedMs <= cutoffMs) orphans.push(name);
    }
    await this.files.remove(orphans);
    return orphans.length;
  }

  private async removeRowsWithoutFiles(maxId: number, marked: IdMarks): Promise<number> {
    let deleted = 0;
    for (let after = 0; after < maxId && !this.stopping; after += ID_RANGE) {
      const upTo = Math.min(after + ID_RANGE, maxId);
      if ((await this.builds.countInIdRange(after, upTo)) > marked.countIn(after, upTo)) {
        // An unmarked row's file was not seen in the walk: look again for that one file before deleting the row.
        const missing: number[] = [];
        for (const row of await this.builds.filesInIdRange(after, upTo)) {
          if (!marked.has(row.id) && (await this.files.modifiedMs(row.fileName)) === null) missing.push(row.id);
        }
        const gone = await this.builds.deleteByIds(missing);
        if (gone.length) this.events.emit(BuildsDeletedEvent.eventName, new BuildsDeletedEvent(gone.map((b) => b.id), 'file_missing'));
        deleted += gone.length;
      }
      await nextTurn();
    }
    return deleted;
  }
}

/** One bit per build id from 1 to `maxId`: the rows whose file the walk saw. */
class IdMarks {
  private readonly bits: Uint8Array;

  constructor(private readonly maxId: number) {
    this.bits = new Uint8Array((maxId >> 3) + 1);
  }

  mark(id: number): void {
    // A row inserted after the walk began is past maxId: the rows' pass does not look at it.
    if (id <= this.maxId) this.bits[id >> 3] |= 1 << (id & 7);
  }

  has(id: number): boolean {
    return id <= this.maxId && (this.bits[id >> 3] & (1 << (id & 7))) !== 0;
  }

  /** Marked ids in (after, upTo]. */
  countIn(after: number, upTo: number): number {
    let count = 0;
    for (let id = after + 1; id <= upTo; id++) if (this.has(id)) count++;
    return count;
  }
}

import { Injectable } from '@nestjs/common';
import { MINUTE_MS } from '../common/time';
import type { FileStore } from './file-store';
import { removeUnreferencedFiles } from './unreferenced-files';

/** The regular sweep of uploaded files spares those younger than this: their row may be about to be written. */
export const ORPHAN_FILE_GRACE_MS = 10 * MINUTE_MS;

/**
 * One module's stored files as the orphan sweeps see them. The module whose rows reference the
 * files registers it at start-up, so the scheduled purges sweep whatever is registered and know no
 * folder: a new kind of stored file brings its sweep with it.
 */
export interface StoredFileOwner {
  /** The sweep's name in the log and the purge metrics; owners sharing a name are one job. */
  readonly orphans: string;
  /** How often the regular sweep runs; the start-up sweep runs every owner once, with no grace. */
  readonly every: 'minute' | 'hour';
  /** How young a file the regular sweep spares: its row may be about to be written. */
  readonly graceMs: number;
  /**
   * The start-up sweep is started, not waited for: the sweep works in slices and may take minutes
   * (the builds folder at a million builds), so the relay listens meanwhile. Its cutoff is taken
   * when it starts, before the relay listens, so it still removes only what was there before.
   */
  readonly inBackground?: boolean;
  /** Removes the owner's files that no row references and that are at least `graceMs` old. */
  sweepOrphans(graceMs: number): Promise<unknown>;
}

/** An owner whose files are the names under one store folder that `referenced()` does not return. */
export function folderOwner(
  store: FileStore,
  owner: Omit<StoredFileOwner, 'sweepOrphans'> & { prefix: string; referenced: () => Promise<Set<string>> },
): StoredFileOwner {
  const { orphans, every, graceMs, prefix, referenced } = owner;
  return { orphans, every, graceMs, sweepOrphans: (grace) => removeUnreferencedFiles(store, prefix, referenced, grace) };
}

/** Owners sharing a name, swept as one job (one log name, one metrics label). */
export interface OrphanSweepJob {
  orphans: string;
  owners: StoredFileOwner[];
  /** Some owner's start-up sweep runs in the background (`StoredFileOwner.inBackground`). */
  inBackground: boolean;
}

/** The registry the owners join in `onModuleInit`; the scheduled purges read it. */
@Injectable()
export class StoredFileOwners {
  private readonly owners: StoredFileOwner[] = [];

  register(owner: StoredFileOwner): void {
    this.owners.push(owner);
  }

  /** The sweeps as jobs (owners grouped by name, in the order they registered), all or one schedule's. */
  jobs(every?: StoredFileOwner['every']): OrphanSweepJob[] {
    const jobs = new Map<string, StoredFileOwner[]>();
    for (const owner of this.owners.filter((o) => every === undefined || o.every === every)) {
      jobs.set(owner.orphans, [...(jobs.get(owner.orphans) ?? []), owner]);
    }
    return [...jobs].map(([orphans, owners]) => ({ orphans, owners, inBackground: owners.some((o) => o.inBackground) }));
  }
}

import { createHash } from 'node:crypto';

/** The prev_hash of the first entry ever written (no anchor yet): 64 zeros. */
export const GENESIS_HASH = '0'.repeat(64);

/** What the hash of one entry covers: every column but the id and the hash itself. */
export interface ChainedFields {
  at: Date;
  actorId: number | null;
  actorLabel: string;
  via: string;
  action: string;
  target: string | null;
  clientAddress: string | null;
  details: Record<string, string | number | boolean | null>;
  prevHash: string;
}

/**
 * The canonical serialisation (docs/audit.md "Chain format"): a JSON array in a fixed field order,
 * the time as epoch milliseconds, details with their keys sorted, so the same entry always gives the
 * same bytes whatever the database returns the columns as.
 */
export function canonicalEntry(entry: ChainedFields): string {
  const details = Object.fromEntries(Object.keys(entry.details).sort().map((key) => [key, entry.details[key]]));
  return JSON.stringify([
    1,
    entry.at.getTime(),
    entry.actorId,
    entry.actorLabel,
    entry.via,
    entry.action,
    entry.target,
    entry.clientAddress,
    details,
    entry.prevHash,
  ]);
}

/** SHA-256 (hex) of the canonical serialisation, which includes the previous entry's hash. */
export function entryHash(entry: ChainedFields): string {
  return createHash('sha256').update(canonicalEntry(entry)).digest('hex');
}

export interface StoredChainEntry extends ChainedFields {
  id: number;
  hash: string;
}

/** Where the chain first fails, or null when every entry and the head agree. */
export interface ChainBreak {
  id: number | null;
  reason: string;
}

/**
 * Walks entries in id order from the anchor (the hash of the last pruned entry, or GENESIS_HASH)
 * and names the first one whose prev_hash or hash does not hold. Entries deleted at the end leave
 * the chain whole: the signed head tells (audit-verifier.ts).
 */
export class ChainWalker {
  private expectedPrev: string;
  private lastId: number | null = null;
  checked = 0;

  constructor(anchorHash: string | null) {
    this.expectedPrev = anchorHash ?? GENESIS_HASH;
  }

  /** The newest entry's hash once one was walked, else null. */
  get lastHash(): string | null {
    return this.lastId === null ? null : this.expectedPrev;
  }

  next(entry: StoredChainEntry): ChainBreak | null {
    if (entry.prevHash !== this.expectedPrev) {
      return {
        id: entry.id,
        reason:
          this.lastId === null
            ? 'its previous hash is not the anchor: an earlier entry was deleted or edited'
            : `its previous hash is not the hash of entry ${this.lastId}: an entry between them was deleted, or one was edited`,
      };
    }
    if (entryHash(entry) !== entry.hash) return { id: entry.id, reason: 'its content does not match its hash: the entry was edited' };
    this.expectedPrev = entry.hash;
    this.lastId = entry.id;
    this.checked++;
    return null;
  }
}

import { type Sometimes } from '../sometimes';

/** How long a credential lookup is reused: revocation does not wait for it (events clear entries), only changes no event announces. */
export const CREDENTIAL_CACHE_MS = 5_000;
/** Entries kept at most; the least recently used goes first. */
export const CREDENTIAL_CACHE_ENTRIES = 2_000;

interface Entry<T> {
  value: T;
  userId: number;
  credentialId: number;
  until: number;
}

/**
 * A credential's lookup (session or PAT, with its member) by the hash of its secret, reused for a
 * few seconds so a burst of requests with one credential reads the database once (issue 42).
 *
 * Revocation stays instant because the events that announce it clear entries (by member, by
 * session or token id) on every instance. A lookup that was under way while an entry was cleared
 * may have read the row before the change: `generation` moves on every clearing, and a lookup
 * begun under an older generation is not kept.
 */
export abstract class CredentialCache<T> {
  private readonly entries = new Map<string, Entry<T>>();
  private generation = 0;

  constructor(
    private readonly ttlMs = CREDENTIAL_CACHE_MS,
    private readonly maxEntries = CREDENTIAL_CACHE_ENTRIES,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whose credential a looked-up value is, for clearing by member or by credential. */
  protected abstract ownerOf(value: T): { userId: number; credentialId: number };

  /**
   * The value held for `hash`, at once; else what `find` reads (kept unless an entry was cleared
   * meanwhile); a miss is not kept.
   */
  lookUp(hash: string, find: (hash: string) => Promise<T | null>): Sometimes<T | null> {
    return this.get(hash) ?? this.read(hash, find);
  }

  private async read(hash: string, find: (hash: string) => Promise<T | null>): Promise<T | null> {
    const generation = this.generation;
    const value = await find(hash);
    if (value && generation === this.generation) this.set(hash, value);
    return value;
  }

  private get(hash: string): T | undefined {
    const entry = this.entries.get(hash);
    if (!entry) return undefined;
    this.entries.delete(hash);
    if (entry.until <= this.now()) return undefined;
    // Map keeps insertion order: moving the entry to the end makes the first one the least recently used.
    this.entries.set(hash, entry);
    return entry.value;
  }

  private set(hash: string, value: T): void {
    this.entries.delete(hash);
    this.entries.set(hash, { value, ...this.ownerOf(value), until: this.now() + this.ttlMs });
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }

  /** Forgets every credential of these members. */
  clearMembers(userIds: readonly number[]): void {
    const members = new Set(userIds);
    this.clearWhere((entry) => members.has(entry.userId));
  }

  /** Forgets these sessions or tokens. */
  clearCredentials(ids: readonly number[]): void {
    const credentials = new Set(ids);
    this.clearWhere((entry) => credentials.has(entry.credentialId));
  }

  private clearWhere(matches: (entry: Entry<T>) => boolean): void {
    this.generation++;
    for (const [hash, entry] of this.entries) if (matches(entry)) this.entries.delete(hash);
  }
}

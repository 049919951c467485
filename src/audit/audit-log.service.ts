import { Injectable, Logger } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { Clock } from '../common/clock';
import { DAY_MS } from '../common/time';
import type { Sql } from '../database/sql';
import { TransactionRunner } from '../database/transaction-runner';
import { RelayConfig } from '../config/relay-config';
import { auditEvent, AuditActor } from './audit-actor';
import { entryHash, GENESIS_HASH } from './audit-chain';
import { AuditEntryEntity } from './audit-entry.entity';
import { AuditFilter, AuditLogRepository } from './audit-log.repository';
import { AuditEvent } from './audit-event';
import { AuditHead, AuditHeadKey, headSignatureHolds, LEGACY_HEAD_KEY_ID, loadAuditHeadKey, signHead } from './audit-head';
import { AuditStateEntity, headOf } from './audit-state.entity';

/** Entries written in one transaction at most (a burst is written in several). */
const MAX_BATCH = 100;

/** An entry to write: its event and the time it was appended. */
interface PendingEntry {
  event: AuditEvent;
  at: Date;
}

/** Details keys whose values are never written, whatever a caller passes (docs/audit.md). */
const SECRET_KEY = /pass(word)?|secret|^token$|code|key$|cookie/i;
const MAX_DETAIL_LENGTH = 500;

export type { AuditFilter } from './audit-log.repository';

/** Written entries are handed to the forwarders (syslog, HTTP) under this in-process event. */
export const AUDIT_APPENDED = 'audit.appended';

/**
 * The audit log's table and its hash chain: one append at a time (the state row is locked on
 * PostgreSQL; SQLite's runner runs one transaction at a time), queries and export in id order,
 * retention that leaves an anchor, so what is kept still verifies.
 */
@Injectable()
export class AuditLogService {
  constructor(
    private readonly log: AuditLogRepository,
    private readonly transactions: TransactionRunner,
    private readonly clock: Clock,
    private readonly events: EventEmitter2,
    private readonly config: RelayConfig,
  ) {}

  private readonly logger = new Logger('Audit');
  private key: AuditHeadKey | null = null;

  /** Made on first use: a command that never writes the log never creates the key file. */
  private headKey(): AuditHeadKey {
    return (this.key ??= loadAuditHeadKey(this.config, true)!);
  }

  /**
   * Appends one entry. Outside a transaction, appends are written one transaction at a time per
   * process, each taking every entry that arrived while the one before it was written (in arrival
   * order): one lock of the state row and one commit for the lot. Each append in its own
   * transaction queued on the state row's lock (PostgreSQL) holding a pooled connection, and a
   * sign-in or status change made one: on the PostgreSQL soak they held one to two of the pool's
   * ten connections waiting (docs/decisions.md#issue-27-pg-soak). Inside a caller's transaction the
   * entry is written in it (a savepoint: a refused entry does not abort the caller's work) and goes
   * with it if it rolls back; the forwarders hear of it once it has committed. `partOfTransaction`
   * drops the savepoint (two statements, one of them under the state row's lock): the entry's
   * failure fails the caller's transaction, which then keeps nothing without its entry.
   */
  append(event: AuditEvent, options: { partOfTransaction?: boolean } = {}): Promise<AuditEntryEntity> {
    const pending = { event, at: this.clock.now() };
    if (this.transactions.inTransaction()) {
      return this.write(() => [pending], options.partOfTransaction === true).then(async ([entry]) => {
        await this.transactions.afterCommit(() => void this.appended(entry));
        return entry;
      });
    }
    return new Promise<AuditEntryEntity>((resolve, reject) => {
      this.queued.push({ ...pending, resolve, reject });
      this.startWriting();
    });
  }

  /**
   * One writer at a time. An entry queued after the writer's last look at the queue but before
   * its end is picked up by the next writer, started here as the last one ends (it would wait
   * for good otherwise, and a shutdown with it).
   *
   * The writer starts after the event loop's current turn (setImmediate), not at once: on SQLite a
   * transaction needs no wait, so a writer started at once wrote every entry in a transaction of its
   * own (the soak: one commit per sign-in and per status change, batches of one). Every entry
   * appended in the same turn goes in one commit; the entry waits for the rest of the turn only.
   */
  private startWriting(): void {
    if (this.writing) return;
    this.writing = new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.writeQueued()).finally(() => {
      this.writing = null;
      if (this.queued.length) this.startWriting();
    });
  }

  /** Entries waiting for the write under way; written in the next one, in this order. */
  private readonly queued: (PendingEntry & { resolve: (entry: AuditEntryEntity) => void; reject: (err: unknown) => void })[] = [];
  private writing: Promise<void> | null = null;

  private async writeQueued(): Promise<void> {
    while (this.queued.length) {
      let batch: typeof this.queued | null = null;
      try {
        // Taken once the state row is held, not before: the entries that arrive while this write
        // waits for the lock (or, on SQLite, for the connection's turn) go in the same commit.
        const entries = await this.write(() => (batch = this.queued.splice(0, MAX_BATCH)));
        batch!.forEach((pending, i) => pending.resolve(this.appended(entries[i])));
      } catch (err) {
        // Failed before taking its entries (no connection, the lock refused): the next ones fail with it.
        batch ??= this.queued.splice(0, MAX_BATCH);
        if (batch.length === 1) batch[0].reject(err);
        // One entry the database refuses must not take the others with it: each again on its own.
        else for (const pending of batch) await this.write(() => [pending]).then(([entry]) => pending.resolve(this.appended(entry)), pending.reject);
      }
    }
  }

  /**
   * The entries `take` gives once the state row is held, chained after the head in order, in one
   * transaction.
   */
  private write(take: () => PendingEntry[], joinCaller = false): Promise<AuditEntryEntity[]> {
    const work = async (tx: Sql): Promise<AuditEntryEntity[]> => {
      const state = await this.log.state(tx, true);
      let prevHash = state?.headHash ?? GENESIS_HASH;
      const rows = take().map(({ event, at }) => {
        const details = safeDetails(event.details);
        const fields = {
          at,
          actorId: event.actorId,
          actorLabel: clip(event.actorLabel || 'unknown', 320),
          via: event.via,
          action: clip(event.action, 64),
          target: event.target === null ? null : clip(event.target, 200),
          clientAddress: event.clientAddress === null ? null : clip(event.clientAddress, 64),
          prevHash,
        };
        const hash = entryHash({ ...fields, details });
        prevHash = hash;
        return { ...fields, details: JSON.stringify(details), hash };
      });
      // One by one: ids follow the chain's order whatever the driver does with a multi-row insert.
      const saved: AuditEntryEntity[] = [];
      for (const row of rows) saved.push(await this.log.insert(row, tx));
      if (state) {
        const head = { ...headOf(state), count: state.headCount + saved.length, lastId: saved[saved.length - 1].id, hash: prevHash };
        await this.log.updateState(this.nextHead(state, head, saved[0].id), tx);
      }
      return saved;
    };
    return joinCaller ? this.transactions.join(work) : this.transactions.run(work);
  }

  private appended(entry: AuditEntryEntity): AuditEntryEntity {
    this.events.emit(AUDIT_APPENDED, entry);
    return entry;
  }

  /** Newest first, `limit` entries older than `before` (an id cursor). */
  page(filter: AuditFilter, limit: number, before?: number): Promise<AuditEntryEntity[]> {
    return this.log.page(filter, limit, before);
  }

  /** Oldest first, in batches, for the export (each batch one indexed query; nothing held open between). */
  async *inOrder(filter: AuditFilter, batch = 500): AsyncGenerator<AuditEntryEntity> {
    let after = 0;
    for (;;) {
      const rows = await this.log.after(filter, after, batch);
      for (const row of rows) yield row;
      if (rows.length < batch) return;
      after = rows[rows.length - 1].id;
    }
  }

  async retentionDays(): Promise<number | null> {
    return (await this.log.state())?.retentionDays ?? null;
  }

  async setRetentionDays(actor: AuditActor, days: number | null): Promise<void> {
    const before = await this.retentionDays();
    await this.log.updateState({ retentionDays: days });
    if (before !== days) await this.append(auditEvent(actor, 'audit.retention_changed', null, { from: before, to: days }));
  }

  /**
   * Deletes entries older than the retention and keeps the hash of the last one deleted as the
   * anchor: the first kept entry's prev_hash, where `svc audit verify` starts.
   */
  async pruneExpired(actor: AuditActor): Promise<number> {
    const removed = await this.transactions.run(async (tx) => {
      const state = await this.log.state(tx, true);
      if (!state?.retentionDays) return 0;
      const cutoff = this.clock.nowMs() - state.retentionDays * DAY_MS;
      const last = await this.log.newestBefore(cutoff, tx);
      if (!last) return 0;
      const removed = await this.log.deleteThrough(last.id, tx);
      const head = { ...headOf(state), count: Math.max(0, state.headCount - removed), anchorHash: last.hash, anchorId: last.id };
      await this.log.updateState({ anchorHash: last.hash, anchorId: last.id, ...this.nextHead(state, head, null) }, tx);
      return removed;
    });
    if (removed) await this.append(auditEvent(actor, 'audit.pruned', null, { entries: removed }));
    return removed;
  }

  /**
   * The head's new columns, signed only when the current head verifies: a head someone changed in
   * the database stays unsigned or mis-signed whatever is appended after, so `svc audit verify`
   * keeps reporting it (docs/audit.md). The one exception is a log that never had an entry or a
   * head: its first entry (id 1, so none was ever written before it) starts the signed head.
   */
  private nextHead(state: AuditStateEntity, head: AuditHead, firstId: number | null): Partial<AuditStateEntity> {
    const columns = { headHash: head.hash, headCount: head.count, headLastId: head.lastId };
    const key = this.headKey();
    const holds = state.headKeyId === key.id && headSignatureHolds(key, headOf(state), state.headMac);
    if (holds || (firstId === 1 && isPristine(state))) return { ...columns, headMac: signHead(key, head), headKeyId: key.id };
    // A log from before the signed head waits for the relay's start, not worth an error.
    if (state.headKeyId !== LEGACY_HEAD_KEY_ID) this.reportBrokenHead(brokenHeadReason(state, key));
    return columns;
  }

  private brokenHeadReported = false;

  /** Once per process: appends go on, the head stays unsigned until an operator accepts it. */
  private reportBrokenHead(why: string): void {
    if (this.brokenHeadReported) return;
    this.brokenHeadReported = true;
    this.logger.error(
      `The audit log head does not vouch for the log (${why}): entries are still written, the head stays unsigned. ` +
        'Run svc audit verify; once you know why, svc audit accept-head signs the log as it stands (docs/audit.md)',
    );
  }

  /**
   * At the relay's start. Signed without an operator only when there is nothing to trust: a new log
   * (its first entry signs it, see nextHead), or one from before the signed head, as the migration
   * marked it (LEGACY_HEAD_KEY_ID) and never signed since. Anything else that does not verify (head
   * unsigned with entries, another key, edited) is logged as an error and left for
   * `svc audit accept-head`: re-signing it here would let whoever can write the database make a
   * shortened log look whole with a restart.
   */
  async signHeadAtStart(actor: AuditActor): Promise<void> {
    const key = this.headKey();
    const state = await this.log.state();
    if (!state) return;
    if (isPristine(state) && (await this.log.count()) === 0) {
      await this.append(auditEvent(actor, 'audit.head_signed', null, { reason: 'new', entries: 0, last_id: null }));
      return;
    }
    if (state.headKeyId === LEGACY_HEAD_KEY_ID && !state.headMac) {
      // A head was signed in this log before: the mark was written in the database since.
      if (await this.log.hasAction('audit.head_signed')) return this.reportBrokenHead('it is marked as from before the signed head, but the log was signed before');
      return this.signAsItStands(actor, 'legacy', (s) => s.headKeyId === LEGACY_HEAD_KEY_ID && !s.headMac);
    }
    if (state.headKeyId !== key.id || !headSignatureHolds(key, headOf(state), state.headMac)) this.reportBrokenHead(brokenHeadReason(state, key));
  }

  /**
   * `svc audit accept-head`: the operator vouches for the log as it stands (after looking into a
   * break, or a database restored where its key is not). Signed, and recorded with the count.
   */
  acceptHead(actor: AuditActor): Promise<void> {
    return this.signAsItStands(actor, 'accepted', () => true);
  }

  /** Signs the head over the entries the table holds, if `still` holds under the lock, and records it. */
  private async signAsItStands(actor: AuditActor, reason: string, still: (state: AuditStateEntity) => boolean): Promise<void> {
    const key = this.headKey();
    const signed = await this.transactions.run(async (tx) => {
      const state = await this.log.state(tx, true);
      if (!state || !still(state)) return null;
      const last = await this.log.newest(tx);
      const count = await this.log.count(tx);
      const head = { ...headOf(state), count, lastId: last?.id ?? state.anchorId, hash: last?.hash ?? state.anchorHash };
      await this.log.updateState({ headHash: head.hash, headCount: count, headLastId: head.lastId, headMac: signHead(key, head), headKeyId: key.id }, tx);
      return { reason, entries: count, last_id: head.lastId };
    });
    if (signed) await this.append(auditEvent(actor, 'audit.head_signed', null, signed));
  }
}

/** The state row as the migrations leave a new database: no entry, no anchor, no head ever signed. */
function isPristine(state: AuditStateEntity): boolean {
  return !state.headMac && state.headKeyId === null && state.headCount === 0 && state.headLastId === null && state.headHash === null && state.anchorId === null && state.anchorHash === null;
}

function brokenHeadReason(state: AuditStateEntity, key: AuditHeadKey): string {
  if (isPristine(state)) return 'the log looks new, but entries were written before';
  if (!state.headMac) return 'it is not signed';
  if (state.headKeyId !== key.id) return `it is signed with another key than ${key.source}`;
  return 'it is not as the relay signed it';
}

/** A details object safe to store: flat values only, secrets' values replaced, long text cut. */
export function safeDetails(details: AuditEvent['details']): AuditEvent['details'] {
  const safe: AuditEvent['details'] = {};
  for (const [key, value] of Object.entries(details ?? {})) {
    if (value === undefined) continue;
    if (SECRET_KEY.test(key)) safe[key] = '[redacted]';
    else if (typeof value === 'string') safe[key] = clip(value, MAX_DETAIL_LENGTH);
    else if (value === null || typeof value === 'number' || typeof value === 'boolean') safe[key] = value;
  }
  return safe;
}

function clip(text: string, max: number): string {
  return text.length > max ? text.slice(0, max) : text;
}

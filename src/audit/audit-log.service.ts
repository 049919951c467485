import { Injectable, Logger } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { Clock } from '../common/clock';
import { DAY_MS } from '../common/time';
import type { Sql } from '../database/sql';
import { type ExplicitTransaction, TransactionRunner } from '../database/transaction-runner';
import { RelayConfig } from '../config/relay-config';
import { auditEvent, AuditActor, RELAY_ACTOR } from './audit-actor';
import { entryHash, GENESIS_HASH } from './audit-chain';
import { AuditEntryEntity } from './audit-entry.entity';
import { AuditFilter, AuditLogRepository, type PendingRow, type WaitingRow } from './audit-log.repository';
import { AuditEvent } from './audit-event';
import { AuditHead, AuditHeadKey, headSignatureHolds, LEGACY_HEAD_KEY_ID, loadAuditHeadKey, pendingSignatureHolds, signHead, signPending } from './audit-head';
import { AuditStateEntity, headOf } from './audit-state.entity';

/** Entries written in one transaction at most (a burst is written in several). */
const MAX_BATCH = 100;

/** An entry to write: its event and the time it was appended. */
interface PendingEntry {
  event: AuditEvent;
  at: Date;
}

/** An event's entry as stored: labels cut to their columns, details made safe (JSON text). */
function chainFields({ event, at }: PendingEntry): PendingRow {
  return {
    at,
    actorId: event.actorId,
    actorLabel: clip(event.actorLabel || 'unknown', 320),
    via: event.via,
    action: clip(event.action, 64),
    target: event.target === null ? null : clip(event.target, 200),
    clientAddress: event.clientAddress === null ? null : clip(event.clientAddress, 64),
    details: JSON.stringify(safeDetails(event.details)),
  };
}

/** Both lists merged by time, each in its own order (stable: on a tie, the waiting one first). */
function byTime(waiting: PendingRow[], fresh: PendingRow[]): PendingRow[] {
  const merged: PendingRow[] = [];
  let i = 0;
  let j = 0;
  while (i < waiting.length || j < fresh.length) {
    if (j >= fresh.length || (i < waiting.length && waiting[i].at.getTime() <= fresh[j].at.getTime())) merged.push(waiting[i++]);
    else merged.push(fresh[j++]);
  }
  return merged;
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
   * ten connections waiting (docs/decisions.md#issue-27-pg-soak).
   *
   * Inside a caller's run() the entry is written as appendIn() writes it, in a savepoint (a refused
   * entry does not abort the caller's work); null: it has no place in the chain yet.
   */
  append(event: AuditEvent): Promise<AuditEntryEntity | null> {
    const at = this.clock.now();
    if (this.transactions.inTransaction()) {
      // A savepoint of the caller's transaction: runExplicit joins an open run() that way.
      return this.transactions.runExplicit((tx) => this.appendIn(tx, event, at)).then(() => null);
    }
    return new Promise<AuditEntryEntity>((resolve, reject) => {
      this.queued.push({ event, at, resolve, reject });
      this.asked++;
      this.startWriting();
    });
  }

  /**
   * Writes the entry to audit_pending in the caller's transaction, which keeps it or not with its own
   * work (no savepoint: a refused entry fails the transaction, which keeps nothing without its entry).
   * Once it has committed, the writer chains it with its next lot. The caller's transaction never
   * takes the state row: it held the row from its entry through its own commit, so every audited
   * upload queued behind the writer and the writer behind it (docs/decisions.md#issue-42-audit-pending).
   */
  async appendIn(transaction: ExplicitTransaction, event: AuditEvent, at = this.clock.now()): Promise<void> {
    const fields = chainFields({ event, at });
    await this.log.insertPending(fields, signPending(this.headKey(), fields), transaction);
    transaction.afterCommit(() => this.chainPending());
  }

  /**
   * Has the writer look for entries waiting in audit_pending: after a transaction that wrote one
   * commits, at start-up and every minute (a relay killed between a commit and its chaining, here or
   * on another instance, left them there).
   */
  chainPending(retryStuck = false): void {
    if (retryStuck) this.stuck.clear();
    this.pendingMayWait = true;
    this.asked++;
    this.startWriting();
  }

  /**
   * Resolves once every entry appended, and every one committed to audit_pending, before this call
   * is chained (or failed). Not "once the writer is idle": under a steady stream of sign-ins it may
   * never be, and GET /audit waits here.
   */
  settled(): Promise<void> {
    const target = this.asked;
    if (this.covered >= target) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ target, resolve }));
  }

  /** Appends and chainPending() calls so far, and how many of them the writer's finished rounds covered. */
  private asked = 0;
  private covered = 0;
  private waiters: { target: number; resolve: () => void }[] = [];

  private cover(upTo: number): void {
    this.covered = Math.max(this.covered, upTo);
    const ready = this.waiters.filter((waiter) => waiter.target <= this.covered);
    if (!ready.length) return;
    this.waiters = this.waiters.filter((waiter) => waiter.target > this.covered);
    for (const waiter of ready) waiter.resolve();
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
      // Nothing queued or flagged is left: whatever was asked for has been taken.
      if (!this.queued.length && !this.pendingMayWait) this.cover(this.asked);
      if (this.queued.length || this.pendingMayWait) this.startWriting();
    });
  }

  /** Entries waiting for the write under way; written in the next one, in this order. */
  private readonly queued: (PendingEntry & { resolve: (entry: AuditEntryEntity) => void; reject: (err: unknown) => void })[] = [];
  private writing: Promise<void> | null = null;
  /** Whether audit_pending may hold entries: true at start (a relay killed after a commit left them). */
  private pendingMayWait = true;
  /**
   * Waiting rows the database refused to chain even on their own: left out of the rounds' looks so
   * they hold up no other entry, tried again by the minute's chainPending(true) (logged each time).
   */
  private readonly stuck = new Set<number>();

  private async writeQueued(): Promise<void> {
    while (this.queued.length || this.pendingMayWait) {
      // What was asked for before this round is covered once the round took every entry queued then
      // and found fewer than MAX_BATCH waiting (a longer backlog is the next rounds').
      const asked = this.asked;
      const queuedBefore = this.queued.length;
      // Cleared before the look, so a commit during this write asks for another; left cleared when
      // the look fails (no tight loop while the database is away: the minute's call asks again).
      const lookForPending = this.pendingMayWait;
      this.pendingMayWait = false;
      let batch: typeof this.queued | null = null;
      let backlog = false;
      try {
        // Taken once the state row is held, not before: the entries that arrive while this write
        // waits for the lock (or, on SQLite, for the connection's turn) go in the same commit.
        const entries = await this.write(async (tx) => {
          const looked = lookForPending ? await this.log.pending(MAX_BATCH + this.stuck.size, tx) : [];
          const waiting = looked.filter((row) => !this.stuck.has(row.id)).slice(0, MAX_BATCH);
          backlog = looked.length === MAX_BATCH + this.stuck.size;
          if (backlog) this.pendingMayWait = true;
          batch = this.queued.splice(0, MAX_BATCH - waiting.length);
          return { waiting, fresh: batch.map(chainFields) };
        });
        const fresh = new Map(batch!.map((pending, i) => [pending, entries.fresh[i]]));
        // Forwarded in the chain's order; a queued entry's caller hears of its own.
        for (const entry of entries.chained) this.appended(entry);
        for (const [pending, entry] of fresh) pending.resolve(entry);
        if (batch!.length >= queuedBefore && !backlog) this.cover(asked);
      } catch (err) {
        // Failed before taking its entries (no connection, the lock refused): the next ones fail with it.
        batch ??= this.queued.splice(0, MAX_BATCH);
        // One entry the database refuses must not take the others with it: each again on its own,
        // the waiting ones first (one of them may be why the round failed).
        if (lookForPending) await this.chainWaitingAlone();
        if (batch.length === 1 && !lookForPending) batch[0].reject(err);
        else {
          for (const pending of batch) {
            await this.write(async () => ({ waiting: [], fresh: [chainFields(pending)] })).then(({ chained: [entry] }) => pending.resolve(this.appended(entry)), pending.reject);
          }
        }
        // Written or refused: what was asked for before the round has its answer.
        if (batch.length >= queuedBefore) this.cover(asked);
      }
    }
  }

  /**
   * After a failed round: each waiting entry in a transaction of its own, so that one the database
   * refuses (a constraint or trigger added by hand, say) holds up none of the others. A refused one
   * stays waiting, is logged, and is left out of the rounds until the next minute's retry: before,
   * it failed every round that looked, and with it every upload's entry waiting behind it.
   */
  private async chainWaitingAlone(): Promise<void> {
    let ids: number[];
    try {
      // Which ids to try: each is read again under the state row's lock before it is chained.
      ids = (await this.log.pending(MAX_BATCH + this.stuck.size)).map((row) => row.id);
    } catch {
      return; // The database is away: the minute's call looks again.
    }
    for (const id of ids) {
      if (this.stuck.has(id)) continue;
      try {
        const { chained } = await this.write(async (tx) => ({ waiting: await this.log.pendingRow(id, tx), fresh: [] }));
        for (const entry of chained) this.appended(entry);
      } catch (err) {
        this.stuck.add(id);
        this.logger.error(`audit_pending row ${id} could not be chained (${(err as Error)?.message ?? err}): it stays waiting, the other entries go on; tried again every minute (docs/audit.md)`);
      }
    }
  }

  /**
   * The entries `take` gives once the state row is held (those waiting in audit_pending, then the
   * queued ones, merged by time), chained after the head in order, in one transaction.
   */
  private write(
    take: (tx: Sql) => Promise<{ waiting: WaitingRow[]; fresh: PendingRow[] }>,
  ): Promise<{ chained: AuditEntryEntity[]; fresh: AuditEntryEntity[] }> {
    // Every statement on `tx`: no scope, so the AsyncLocalStorage stays off (runExplicit).
    return this.transactions.runExplicit(async (tx) => {
      const state = await this.log.state(tx, true);
      const { waiting, fresh } = await take(tx);
      const ordered = byTime(waiting.map((row) => this.genuine(row)), fresh);
      let prevHash = state?.headHash ?? GENESIS_HASH;
      const linked = ordered.map((fields) => {
        const hash = entryHash({ ...fields, prevHash, details: JSON.parse(fields.details) as AuditEvent['details'] });
        const entry = { ...fields, prevHash, hash };
        prevHash = hash;
        return entry;
      });
      const chained = await this.log.insertChained(linked, tx);
      await this.log.deletePending(
        waiting.map((row) => row.id),
        tx,
      );
      if (state && chained.length) {
        const head = { ...headOf(state), count: state.headCount + chained.length, lastId: chained[chained.length - 1].id, hash: prevHash };
        await this.log.updateState(this.nextHead(state, head, chained[0].id), tx);
      }
      const freshSet = new Set<PendingRow>(fresh);
      return { chained, fresh: chained.filter((_, i) => freshSet.has(ordered[i])) };
    });
  }

  /**
   * A waiting row as it is chained: itself when the relay signed it, else an entry saying a row not
   * signed by the relay was refused (what it claimed, never chained as it stands: the head the relay
   * signs next would vouch for it). Whoever can write the database could otherwise add entries.
   */
  private genuine(row: WaitingRow): PendingRow {
    const { id, mac, ...fields } = row;
    if (pendingSignatureHolds(this.headKey(), fields, mac)) return fields;
    this.logger.error(`audit_pending row ${id} is not signed by this relay (${fields.action}): not chained, recorded as audit.pending_refused (docs/audit.md)`);
    // Whatever it holds, as text: a forged row's time may be no date at all.
    const claimedAt = Number.isFinite(fields.at.getTime()) ? fields.at.toISOString() : null;
    const claimed = { pending_id: id, action: String(fields.action), actor: String(fields.actorLabel), target: fields.target === null ? null : String(fields.target), at: claimedAt };
    return chainFields({ event: auditEvent(RELAY_ACTOR, 'audit.pending_refused', null, claimed), at: this.clock.now() });
  }

  private appended(entry: AuditEntryEntity): AuditEntryEntity {
    this.events.emit(AUDIT_APPENDED, entry);
    return entry;
  }

  /**
   * Newest first, `limit` entries older than `before` (an id cursor). After this process's writer
   * is done: an action answered before this read (an upload's entry, committed with it) is chained.
   */
  async page(filter: AuditFilter, limit: number, before?: number): Promise<AuditEntryEntity[]> {
    await this.settled();
    return this.log.page(filter, limit, before);
  }

  /** Oldest first, in batches, for the export (each batch one indexed query; nothing held open between). */
  async *inOrder(filter: AuditFilter, batch = 500): AsyncGenerator<AuditEntryEntity> {
    await this.settled();
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

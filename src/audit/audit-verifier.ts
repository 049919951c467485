import { Injectable } from '@nestjs/common';
import { RelayConfig } from '../config/relay-config';
import { TransactionRunner } from '../database/transaction-runner';
import { ChainBreak, ChainWalker } from './audit-chain';
import { AuditLogRepository } from './audit-log.repository';
import { AuditHeadKey, headSignatureHolds, LEGACY_HEAD_KEY_ID, loadAuditHeadKey } from './audit-head';
import { AuditStateEntity, headOf } from './audit-state.entity';
import { parseDetails } from './audit.mapper';
import type { Sql } from '../database/sql';

export interface VerifyResult {
  checked: number;
  anchorId: number | null;
  broken: ChainBreak | null;
  /** Ids of `audit.head_signed` entries with entries before them: signed anew there, on trust (docs/audit.md). */
  signedAt: number[];
  /** Entries committed and not yet chained (audit_pending): not a break, the relay chains them as it runs. */
  pending: number;
}

/**
 * `svc audit verify`: recomputes every kept entry's hash in id order from the anchor, then checks
 * the head (count, newest id and hash, anchor) against its signature. Reads only, in one
 * transaction, so entries the relay appends meanwhile are not half seen. Never writes: a missing
 * key is reported, not made.
 */
export async function verifyAuditLog(tx: Sql, key: AuditHeadKey | null, batch = 1000): Promise<VerifyResult> {
  const log = AuditLogRepository.of(tx);
  await log.readOneSnapshot(tx);
  const state = await log.state(tx);
  const signedAt: number[] = [];
  if (!state) return { checked: 0, anchorId: null, broken: { id: null, reason: 'the audit state row is missing' }, signedAt, pending: 0 };
  const walker = new ChainWalker(state.anchorHash);
  let after = 0;
  let lastId: number | null = null;
  let signedBefore = false;
  for (;;) {
    const rows = await log.after({}, after, batch, tx);
    for (const row of rows) {
      const broken = walker.next({ ...row, details: parseDetails(row.details) });
      if (broken) return { checked: walker.checked, anchorId: state.anchorId, broken, signedAt, pending: await pendingOf(log, tx) };
      if (row.action === 'audit.head_signed') {
        signedBefore = true;
        if (Number(parseDetails(row.details).entries) > 0) signedAt.push(row.id);
      }
      lastId = row.id;
    }
    if (rows.length < batch) break;
    after = rows[rows.length - 1].id;
  }
  const broken = headBreak(state, key, signedBefore, { count: walker.checked, lastId: lastId ?? state.anchorId, hash: walker.lastHash ?? state.anchorHash });
  return { checked: walker.checked, anchorId: state.anchorId, broken: broken === null ? null : { id: lastId, reason: broken }, signedAt, pending: await pendingOf(log, tx) };
}

/** Read last: a database the relay has not migrated since audit_pending came has none (and nothing waits). */
function pendingOf(log: AuditLogRepository, tx: Sql): Promise<number> {
  return log.countPending(tx).catch(() => 0);
}

/** Why the head does not vouch for the entries found, or null when it does. */
function headBreak(state: AuditStateEntity, key: AuditHeadKey | null, signedBefore: boolean, found: { count: number; lastId: number | null; hash: string | null }): string | null {
  if (!state.headMac && state.headKeyId === LEGACY_HEAD_KEY_ID && signedBefore) {
    return 'the head is not signed: it is marked as from before the signed head, but the log was signed before (the mark was written in the database)';
  }
  if (!state.headMac && state.headKeyId === LEGACY_HEAD_KEY_ID) return 'the head is not signed yet: the log is from before the signed head, start the relay once to sign it';
  if (!state.headMac) return 'the head is not signed: it was removed or reset in the database (entries may have been deleted); svc audit accept-head once you know why';
  if (!key) return 'the key the head is signed with is not here: set SVC_SECRETS_KEY as the relay has it, or run this on the relay\'s data folder';
  if (state.headKeyId !== key.id) return `the head is signed with another key than ${key.source}: SVC_SECRETS_KEY differs from the relay's, or the head was replaced`;
  if (!headSignatureHolds(key, headOf(state), state.headMac)) {
    return 'the head (entry count, newest entry, anchor) is not as the relay signed it: it was edited in the database, entries were deleted';
  }
  if (found.hash !== state.headHash || found.lastId !== state.headLastId) {
    return 'the newest entry is not the one the relay last wrote: entries after it were deleted, or entries were added';
  }
  if (found.count !== state.headCount) return `the relay wrote ${state.headCount} entries that are kept, ${found.count} are here: entries were deleted or added`;
  return null;
}

/** The same check on the relay's own database (tests; the CLI opens the database read-only itself). */
@Injectable()
export class AuditVerifier {
  constructor(
    private readonly transactions: TransactionRunner,
    private readonly config: RelayConfig,
  ) {}

  verify(batch = 1000): Promise<VerifyResult> {
    return this.transactions.run((tx) => verifyAuditLog(tx, loadAuditHeadKey(this.config, false), batch));
  }
}

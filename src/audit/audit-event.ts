import type { ExplicitTransaction } from '../database/transaction-runner';

/**
 * What any module tells the audit log: emitted on the event bus as AUDIT_EVENT, recorded by the
 * audit module (which owns the table and the hash chain). Never put a secret in `details`.
 */
export const AUDIT_EVENT = 'audit.record';

/**
 * An entry that is part of the emitter's open transaction: emitted with `emitAsync` inside it as an
 * AuditEventInTransaction, written in it (no savepoint of its own) and failing it when it cannot be
 * written, so the work and its entry are kept together or not at all (an upload:
 * docs/decisions.md#issue-42-upload-audit).
 */
export const AUDIT_EVENT_IN_TRANSACTION = 'audit.record.in-transaction';

/** How the actor reached the relay. */
export type AuditVia = 'cookie' | 'pat' | 'mcp' | 'scim' | 'agent' | 'cli' | 'system' | 'sso' | 'anonymous' | 'slack';

export class AuditEvent {
  constructor(
    /** e.g. 'auth.sign_in', 'auth.sign_in_failed', 'member.role_changed', 'scim.user_deactivated' */
    readonly action: string,
    /** The acting member's id (null for anonymous or the relay itself). */
    readonly actorId: number | null,
    /** A readable name for the actor (e-mail, token name, 'relay'). */
    readonly actorLabel: string,
    readonly via: AuditVia,
    /** What was acted on, e.g. 'member:12', 'build:40', 'token:3'; null when nothing. */
    readonly target: string | null,
    readonly clientAddress: string | null,
    readonly details: Record<string, string | number | boolean | null> = {},
  ) {}
}

/** AUDIT_EVENT_IN_TRANSACTION's payload: the entry, and the transaction it is part of. */
export class AuditEventInTransaction {
  constructor(
    readonly event: AuditEvent,
    /** Handed over explicitly (TransactionRunner.runExplicit): the entry is written in it. */
    readonly transaction: ExplicitTransaction,
  ) {}
}

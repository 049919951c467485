import { DataSource } from 'typeorm';
import { loadAuditHeadKey, signPending } from '../../src/audit/audit-head';
import { AuditRecorderListener } from '../../src/audit/audit-recorder.listener';
import type { AuditEntryResponse } from '../../src/audit/audit.mapper';
import type { TestMember } from '../support/factory';
import type { RelayUnderTest } from '../support/use-relay';
import { testDialect, TestRelay } from '../support/test-relay';

/** Waits until every audit event emitted so far is written (the recorder listens asynchronously). */
export function auditSettled(relay: TestRelay): Promise<void> {
  return relay.app.get(AuditRecorderListener).idle();
}

/** Every entry matching `query` (newest first), read through GET /audit as `admin`. */
export async function auditEntries(ctx: RelayUnderTest, admin: TestMember, query = ''): Promise<AuditEntryResponse[]> {
  await auditSettled(ctx.relay);
  const res = await ctx.members.as(admin, 'get', `/api/v1/audit?limit=200${query ? `&${query}` : ''}`).expect(200);
  return res.body.items;
}

/** A statement on the relay's own database, with `?` placeholders on both dialects. */
export function sql(relay: TestRelay, text: string, params: unknown[] = []): Promise<unknown> {
  let n = 0;
  const query = testDialect === 'postgres' ? text.replace(/\?/g, () => `$${++n}`) : text;
  return relay.app.get(DataSource).query(query, params);
}

/**
 * Makes the database refuse (or accept again) every new audit entry, as a full disk or a broken table
 * would: in the chain (audit_entries) and waiting to be chained (audit_pending, an upload's).
 */
export async function refuseAuditInserts(relay: TestRelay, refuse: boolean): Promise<void> {
  for (const table of ['audit_entries', 'audit_pending']) {
    const trigger = `refuse_${table}`;
    if (testDialect === 'postgres') {
      if (!refuse) {
        await sql(relay, `DROP TRIGGER ${trigger} ON ${table}`);
        continue;
      }
      await sql(relay, `CREATE OR REPLACE FUNCTION refuse_audit() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'audit refused'; END $$ LANGUAGE plpgsql`);
      await sql(relay, `CREATE TRIGGER ${trigger} BEFORE INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION refuse_audit()`);
    } else {
      await sql(relay, refuse ? `CREATE TRIGGER ${trigger} BEFORE INSERT ON ${table} BEGIN SELECT RAISE(ABORT, 'audit refused'); END` : `DROP TRIGGER ${trigger}`);
    }
  }
}

/** Has the database refuse to chain entries of this one action (audit_entries only: they can still wait in audit_pending), or stop refusing. */
export async function refuseChaining(relay: TestRelay, action: string, refuse: boolean): Promise<void> {
  if (testDialect === 'postgres') {
    if (!refuse) return void (await sql(relay, 'DROP TRIGGER refuse_chaining ON audit_entries'));
    await sql(relay, `CREATE OR REPLACE FUNCTION refuse_chaining() RETURNS trigger AS $$ BEGIN IF NEW.action = '${action}' THEN RAISE EXCEPTION 'chaining refused'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`);
    await sql(relay, 'CREATE TRIGGER refuse_chaining BEFORE INSERT ON audit_entries FOR EACH ROW EXECUTE FUNCTION refuse_chaining()');
  } else {
    await sql(relay, refuse ? `CREATE TRIGGER refuse_chaining BEFORE INSERT ON audit_entries WHEN NEW.action = '${action}' BEGIN SELECT RAISE(ABORT, 'chaining refused'); END` : 'DROP TRIGGER refuse_chaining');
  }
}

/**
 * An entry as a relay killed between its transaction's commit and the chaining leaves it: waiting in
 * audit_pending, signed with the relay's head key; `forged` writes it as someone with only the database would.
 */
export async function plantPending(relay: TestRelay, action: string, details: Record<string, unknown>, forged = false, atMs = relay.clock.nowMs()): Promise<void> {
  const fields = { at: new Date(atMs), actorId: null, actorLabel: 'probe', via: 'system', action, target: null, clientAddress: null, details: JSON.stringify(details) };
  const mac = forged ? 'f'.repeat(64) : signPending(loadAuditHeadKey(relay.config, false)!, fields);
  await sql(relay, 'INSERT INTO audit_pending (at, actor_id, actor_label, via, action, target, client_address, details, mac) VALUES (?, NULL, ?, ?, ?, NULL, NULL, ?, ?)', [
    atMs,
    fields.actorLabel,
    fields.via,
    action,
    fields.details,
    mac,
  ]);
}

/** How many entries wait in audit_pending. */
export async function pendingCount(relay: TestRelay): Promise<number> {
  const [row] = (await sql(relay, 'SELECT COUNT(*) AS n FROM audit_pending')) as { n: number | string }[];
  return Number(row.n);
}

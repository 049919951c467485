import { DataSource } from 'typeorm';
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

/** Makes the database refuse (or accept again) every new audit entry, as a full disk or a broken table would. */
export async function refuseAuditInserts(relay: TestRelay, refuse: boolean): Promise<void> {
  if (testDialect === 'postgres') {
    if (!refuse) return void (await sql(relay, 'DROP TRIGGER refuse_audit ON audit_entries'));
    await sql(relay, `CREATE OR REPLACE FUNCTION refuse_audit() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'audit refused'; END $$ LANGUAGE plpgsql`);
    await sql(relay, 'CREATE TRIGGER refuse_audit BEFORE INSERT ON audit_entries FOR EACH ROW EXECUTE FUNCTION refuse_audit()');
    return;
  }
  await sql(relay, refuse ? `CREATE TRIGGER refuse_audit BEFORE INSERT ON audit_entries BEGIN SELECT RAISE(ABORT, 'audit refused'); END` : 'DROP TRIGGER refuse_audit');
}

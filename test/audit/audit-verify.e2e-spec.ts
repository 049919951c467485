import { EventEmitter2 } from '@nestjs/event-emitter';
import { AuditEvent, AUDIT_EVENT } from '../../src/audit/audit-event';
import { CLI_TEST_TIMEOUT_MS, emptyDir, runCli } from '../cli/cli-process';
import { join } from 'node:path';
import { itSqliteOnly, testDialect } from '../support/test-relay';
import { useTestRelay } from '../support/use-relay';
import { auditSettled, sql } from './audit-support';

/**
 * `svc audit verify` against the relay's own database (SQLite file or, under test:postgres, the
 * relay's PostgreSQL database), while the relay runs, after rows are edited and deleted behind it.
 */
describe(`svc audit verify (${testDialect})`, () => {
  const ctx = useTestRelay();

  async function verify(): Promise<{ code: number | null; stdout: string; stderr: string; json: Record<string, unknown> }> {
    const env = ctx.relay.env.SVC_DATABASE_URL ? { SVC_DATABASE_URL: ctx.relay.env.SVC_DATABASE_URL } : {};
    const result = await runCli(['audit', 'verify', '--data-dir', ctx.relay.dataDir, '--json'], { cwd: emptyDir(), env, timeoutMs: 90_000 });
    return { ...result, json: result.stdout.trim() ? JSON.parse(result.stdout) : {} };
  }

  async function ids(): Promise<number[]> {
    const rows = (await sql(ctx.relay, 'SELECT id FROM audit_entries ORDER BY id')) as { id: number | string }[];
    return rows.map((r) => Number(r.id));
  }

  beforeAll(async () => {
    await ctx.members.admin();
    const events = ctx.relay.app.get(EventEmitter2);
    for (let i = 0; i < 6; i++) await events.emitAsync(AUDIT_EVENT, new AuditEvent('test.verify', null, 'probe', 'system', `probe:${i}`, null, { i }));
    await auditSettled(ctx.relay);
  });

  itSqliteOnly('svc backup works on the SQLite file only')(
    'records svc backup as the operator (via cli), in the chain',
    async () => {
      const archive = join(emptyDir(), 'audit-backup.tar');
      const backup = await runCli(['backup', archive, '--data-dir', ctx.relay.dataDir], { cwd: emptyDir(), timeoutMs: 90_000 });
      expect(backup.stderr).toBe('');
      expect(backup.code).toBe(0);
      const rows = (await sql(ctx.relay, "SELECT actor_label, via, details FROM audit_entries WHERE action = 'backup.created'")) as {
        actor_label: string;
        via: string;
        details: string;
      }[];
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ actor_label: 'operator', via: 'cli' });
      expect(JSON.parse(rows[0].details)).toMatchObject({ file: 'audit-backup.tar' });
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    'passes an untouched log, then names an edited row (exit 1), whatever column was changed',
    async () => {
      const intact = await verify();
      expect(intact.stderr).toBe('');
      expect(intact.code).toBe(0);
      expect(intact.json).toMatchObject({ ok: true, broken_id: null });
      expect(intact.json.checked).toBe((await ids()).length);

      const [, second] = await ids();
      await sql(ctx.relay, "UPDATE audit_entries SET actor_label = 'someone else' WHERE id = ?", [second]);
      const edited = await verify();
      expect(edited.code).toBe(1);
      expect(edited.json).toMatchObject({ ok: false, broken_id: second, reason: expect.stringContaining('edited') });

      // The original value restored: the chain holds again.
      await sql(ctx.relay, "UPDATE audit_entries SET actor_label = 'probe' WHERE id = ?", [second]);
      const restored = await verify();
      expect(restored.json).toMatchObject({ ok: true });
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    'names the entry after a deleted row, and notices a deleted newest row',
    async () => {
      const all = await ids();
      await sql(ctx.relay, 'DELETE FROM audit_entries WHERE id = ?', [all[3]]);
      const gap = await verify();
      expect(gap.code).toBe(1);
      expect(gap.json).toMatchObject({ ok: false, broken_id: all[4], reason: expect.stringContaining('deleted') });

      // Without the json flag: the message on stderr names the entry.
      const env = ctx.relay.env.SVC_DATABASE_URL ? { SVC_DATABASE_URL: ctx.relay.env.SVC_DATABASE_URL } : {};
      const plain = await runCli(['audit', 'verify', '--data-dir', ctx.relay.dataDir], { cwd: emptyDir(), env, timeoutMs: 90_000 });
      expect(plain.code).toBe(1);
      expect(plain.stderr).toContain(`Audit entry ${all[4]} is broken`);

      await sql(ctx.relay, 'DELETE FROM audit_entries WHERE id >= ?', [all[3]]);
      const truncated = await verify();
      expect(truncated.code).toBe(1);
      expect(truncated.json).toMatchObject({ ok: false, reason: expect.stringContaining('newest entry') });
    },
    CLI_TEST_TIMEOUT_MS,
  );
});

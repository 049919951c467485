import { EventEmitter2 } from '@nestjs/event-emitter';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { AuditEvent, AUDIT_EVENT } from '../../src/audit/audit-event';
import { startRelay } from '../../src/bootstrap/start-relay';
import { JsonLogger } from '../../src/logging/json-logger';
import { CLI_TEST_TIMEOUT_MS, CliResult, emptyDir, runCli } from '../cli/cli-process';
import { join } from 'node:path';
import { MemberFactory } from '../support/factory';
import { itSqliteOnly, startTestRelay, testDialect, TestRelay } from '../support/test-relay';
import { useTestRelay, withTestRelay } from '../support/use-relay';
import { auditSettled, pendingCount, plantPending, sql } from './audit-support';
import { ScheduledPurgesService } from '../../src/maintenance/scheduled-purges.service';

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

  async function ids(where = ''): Promise<number[]> {
    const rows = (await sql(ctx.relay, `SELECT id FROM audit_entries ${where} ORDER BY id`)) as { id: number | string }[];
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

      // A probe's row (the log starts with the relay's audit.head_signed and the Admin's entries).
      const [, second] = await ids("WHERE action = 'test.verify'");
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

/** `svc audit verify --json` on a relay's data folder (and its PostgreSQL database under test:postgres). */
async function verifyRelay(relay: TestRelay, cwd = emptyDir(), extraEnv: Record<string, string> = {}): Promise<CliResult & { json: Record<string, unknown> }> {
  const env = { ...(relay.env.SVC_DATABASE_URL ? { SVC_DATABASE_URL: relay.env.SVC_DATABASE_URL } : {}), ...extraEnv };
  const result = await runCli(['audit', 'verify', '--data-dir', relay.dataDir, '--json'], { cwd, env, timeoutMs: 90_000 });
  return { ...result, json: result.stdout.trim() ? JSON.parse(result.stdout) : {} };
}

/** Six probe entries after the first Admin's, all written. */
async function seedLog(relay: TestRelay): Promise<number[]> {
  const events = relay.app.get(EventEmitter2);
  for (let i = 0; i < 6; i++) await events.emitAsync(AUDIT_EVENT, new AuditEvent('test.verify', null, 'probe', 'system', `probe:${i}`, null, { i }));
  await auditSettled(relay);
  const rows = (await sql(relay, 'SELECT id, hash FROM audit_entries ORDER BY id')) as { id: number | string; hash: string }[];
  return rows.map((r) => Number(r.id));
}

async function hashOf(relay: TestRelay, id: number): Promise<string> {
  const rows = (await sql(relay, 'SELECT hash FROM audit_entries WHERE id = ?', [id])) as { hash: string }[];
  return rows[0].hash;
}

/**
 * Truncation (issue 36 item 6): entries deleted at the end, with the head made to agree as far as
 * the database allows. The head (count, last id, hash, anchor) is signed with a key outside the
 * database, so whatever is written there without it is a break.
 */
describe(`svc audit verify: truncation (${testDialect})`, () => {
  async function attacked(attack: (relay: TestRelay, ids: number[]) => Promise<void>): Promise<CliResult & { json: Record<string, unknown> }> {
    return withTestRelay({}, async (relay, members) => {
      await members.admin();
      const ids = await seedLog(relay);
      expect((await verifyRelay(relay)).json).toMatchObject({ ok: true });
      await attack(relay, ids);
      return verifyRelay(relay);
    });
  }

  it(
    'reports newest entries deleted with the head set to NULL',
    async () => {
      const result = await attacked(async (relay, ids) => {
        await sql(relay, 'DELETE FROM audit_entries WHERE id >= ?', [ids[ids.length - 2]]);
        await sql(relay, 'UPDATE audit_state SET head_hash = NULL');
      });
      expect(result.code).toBe(1);
      expect(result.json).toMatchObject({ ok: false, reason: expect.stringContaining('head') });
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    "reports newest entries deleted with the head set to the new last entry's hash",
    async () => {
      const result = await attacked(async (relay, ids) => {
        await sql(relay, 'DELETE FROM audit_entries WHERE id >= ?', [ids[ids.length - 2]]);
        await sql(relay, 'UPDATE audit_state SET head_hash = ?', [await hashOf(relay, ids[ids.length - 3])]);
      });
      expect(result.code).toBe(1);
      expect(result.json).toMatchObject({ ok: false, reason: expect.stringContaining('head') });
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    'reports every entry deleted with the head set to NULL',
    async () => {
      const result = await attacked(async (relay) => {
        await sql(relay, 'DELETE FROM audit_entries');
        await sql(relay, 'UPDATE audit_state SET head_hash = NULL');
      });
      expect(result.code).toBe(1);
      expect(result.json).toMatchObject({ ok: false, checked: 0 });
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    'reports a head whose every column was made to agree, and a head whose signature was removed',
    async () => {
      const forged = await attacked(async (relay, ids) => {
        const last = ids[ids.length - 3];
        await sql(relay, 'DELETE FROM audit_entries WHERE id > ?', [last]);
        await sql(relay, 'UPDATE audit_state SET head_hash = ?, head_count = ?, head_last_id = ?', [await hashOf(relay, last), ids.length - 2, last]);
      });
      expect(forged.code).toBe(1);
      expect(forged.json).toMatchObject({ ok: false, reason: expect.stringContaining('signed') });

      const unsigned = await attacked(async (relay) => {
        await sql(relay, 'DELETE FROM audit_entries');
        await sql(relay, 'UPDATE audit_state SET head_hash = NULL, head_count = 0, head_last_id = NULL, head_mac = NULL');
      });
      expect(unsigned.code).toBe(1);
      expect(unsigned.json).toMatchObject({ ok: false, reason: expect.stringContaining('not signed') });
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    'reports oldest entries deleted with the anchor set to the last deleted one',
    async () => {
      const result = await attacked(async (relay, ids) => {
        const anchor = await hashOf(relay, ids[1]);
        await sql(relay, 'DELETE FROM audit_entries WHERE id <= ?', [ids[1]]);
        await sql(relay, 'UPDATE audit_state SET anchor_hash = ?, anchor_id = ?', [anchor, ids[1]]);
      });
      expect(result.code).toBe(1);
    },
    CLI_TEST_TIMEOUT_MS,
  );
});

/** A relay whose body can restart it on the same data folder and database, as an operator would; stopped after. */
async function withRestartableRelay(body: (relay: TestRelay, restart: (whileStopped?: () => Promise<void>) => Promise<string[]>) => Promise<void>): Promise<void> {
  const relay = await startTestRelay();
  try {
    await new MemberFactory(relay).admin();
    // The relay's error lines at the start, the audit log's only.
    const restart = async (whileStopped?: () => Promise<void>): Promise<string[]> => {
      await relay.app.close();
      await whileStopped?.();
      const lines: string[] = [];
      relay.app = await startRelay(relay.config, new JsonLogger('info', (line, level) => void (level === 'error' && lines.push(line))));
      return lines.filter((line) => line.includes('audit log head'));
    };
    await body(relay, restart);
  } finally {
    await relay.app.close();
    await relay.discard();
  }
}

async function headSignedEntries(relay: TestRelay): Promise<{ id: number; details: Record<string, unknown> }[]> {
  const rows = (await sql(relay, "SELECT id, details FROM audit_entries WHERE action = 'audit.head_signed' ORDER BY id")) as { id: number | string; details: string }[];
  return rows.map((r) => ({ id: Number(r.id), details: JSON.parse(r.details) }));
}

function acceptHead(relay: TestRelay): Promise<CliResult> {
  const env = relay.env.SVC_DATABASE_URL ? { SVC_DATABASE_URL: relay.env.SVC_DATABASE_URL } : {};
  return runCli(['audit', 'accept-head', '--data-dir', relay.dataDir], { cwd: emptyDir(), env, timeoutMs: 90_000 });
}

/**
 * Who may sign a head anew: the relay at its start only for a new log or one from before the signed
 * head (marked by its migration); anything else stays a break until `svc audit accept-head`.
 */
describe(`svc audit verify: a head signed anew (${testDialect})`, () => {
  it(
    'starts a new log signed, with audit.head_signed (new, 0 entries) as its first entry',
    async () => {
      await withTestRelay({}, async (relay, members) => {
        await members.admin();
        const ids = await seedLog(relay);
        expect(ids[0]).toBe(1);
        expect(await headSignedEntries(relay)).toEqual([{ id: 1, details: { reason: 'new', entries: 0, last_id: null } }]);
        const result = await verifyRelay(relay);
        expect(result.code).toBe(0);
        expect(result.json).toMatchObject({ ok: true, checked: ids.length, head_signed_at: [] });
      });
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    'keeps a truncated log with its signature removed broken across a restart, until an operator accepts it',
    async () => {
      await withRestartableRelay(async (relay, restart) => {
        const ids = await seedLog(relay);
        await sql(relay, 'DELETE FROM audit_entries WHERE id >= ?', [ids[ids.length - 2]]);
        await sql(relay, 'UPDATE audit_state SET head_mac = NULL, head_hash = ?', [await hashOf(relay, ids[ids.length - 3])]);
        const errors = await restart();
        expect(errors).toHaveLength(1);
        expect(errors[0]).toContain('svc audit accept-head');
        // Appends after the start do not sign it either.
        await relay.app.get(EventEmitter2).emitAsync(AUDIT_EVENT, new AuditEvent('test.verify', null, 'probe', 'system', 'after', null, {}));
        await auditSettled(relay);
        const broken = await verifyRelay(relay);
        expect(broken.code).toBe(1);
        expect(broken.json).toMatchObject({ ok: false, reason: expect.stringContaining('not signed') });
        expect((await headSignedEntries(relay)).map((e) => e.details.reason)).toEqual(['new']);

        const accepted = await acceptHead(relay);
        expect(accepted.stderr).toBe('');
        expect(accepted.code).toBe(0);
        const kept = ids.length - 2 + 1;
        const signed = await headSignedEntries(relay);
        expect(signed.map((e) => e.details)).toEqual([
          { reason: 'new', entries: 0, last_id: null },
          { reason: 'accepted', entries: kept, last_id: signed[1].id - 1 },
        ]);
        const intact = await verifyRelay(relay);
        expect(intact.code).toBe(0);
        expect(intact.json).toMatchObject({ ok: true, checked: kept + 1, head_signed_at: [signed[1].id] });
        // The relay goes on signing the accepted head.
        await relay.app.get(EventEmitter2).emitAsync(AUDIT_EVENT, new AuditEvent('test.verify', null, 'probe', 'system', 'later', null, {}));
        await auditSettled(relay);
        expect((await verifyRelay(relay)).json).toMatchObject({ ok: true, checked: kept + 2 });
      });
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    'keeps a head with a junk key id broken across a restart',
    async () => {
      await withRestartableRelay(async (relay, restart) => {
        const ids = await seedLog(relay);
        await sql(relay, 'DELETE FROM audit_entries WHERE id >= ?', [ids[ids.length - 2]]);
        await sql(relay, "UPDATE audit_state SET head_key_id = 'junk'");
        expect(await restart()).toHaveLength(1);
        const result = await verifyRelay(relay);
        expect(result.code).toBe(1);
        expect(result.json).toMatchObject({ ok: false, reason: expect.stringContaining('another key') });
        expect(await headSignedEntries(relay)).toHaveLength(1);
      });
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    'keeps a log emptied and its head reset to a new one\'s broken across a restart',
    async () => {
      await withRestartableRelay(async (relay, restart) => {
        await seedLog(relay);
        await sql(relay, 'DELETE FROM audit_entries');
        await sql(relay, 'UPDATE audit_state SET head_hash = NULL, head_count = 0, head_last_id = NULL, head_mac = NULL, head_key_id = NULL');
        const errors = await restart();
        expect(errors).toHaveLength(1);
        expect(errors[0]).toContain('looks new');
        const result = await verifyRelay(relay);
        expect(result.code).toBe(1);
        expect(result.json).toMatchObject({ ok: false, reason: expect.stringContaining('not signed') });
      });
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    'signs a log from before the signed head once, as its migration marks it, and never a log marked so by hand',
    async () => {
      await withRestartableRelay(async (relay, restart) => {
        const ids = await seedLog(relay);
        // The log as it was before issue 36: no audit.head_signed (the first entry pruned, the
        // anchor after it), the head's new columns as migration AuditHeadSignature adds them, and
        // migration AuditHeadLegacy not run yet.
        const anchor = await hashOf(relay, ids[0]);
        await sql(relay, 'DELETE FROM audit_entries WHERE id = ?', [ids[0]]);
        await sql(relay, 'UPDATE audit_state SET anchor_id = ?, anchor_hash = ?, head_mac = NULL, head_key_id = NULL, head_count = 0, head_last_id = NULL', [ids[0], anchor]);
        await sql(relay, "DELETE FROM migrations WHERE name = 'AuditHeadLegacy1700000029100'");
        expect(await restart()).toEqual([]);
        const signed = await headSignedEntries(relay);
        expect(signed.map((e) => e.details)).toEqual([{ reason: 'legacy', entries: ids.length - 1, last_id: ids[ids.length - 1] }]);
        const intact = await verifyRelay(relay);
        expect(intact.code).toBe(0);
        expect(intact.json).toMatchObject({ ok: true, checked: ids.length, head_signed_at: [signed[0].id] });

        // The same mark written by hand after a truncation: this log was signed before.
        const later = await seedLog(relay);
        await sql(relay, 'DELETE FROM audit_entries WHERE id >= ?', [later[later.length - 2]]);
        await sql(relay, "UPDATE audit_state SET head_mac = NULL, head_key_id = 'legacy'");
        expect(await restart()).toHaveLength(1);
        expect(await headSignedEntries(relay)).toHaveLength(1);
        expect((await verifyRelay(relay)).json).toMatchObject({ ok: false, reason: expect.stringContaining('signed before') });
      });
    },
    CLI_TEST_TIMEOUT_MS,
  );
});

/**
 * Entries written inside another transaction (an upload's) wait in audit_pending until the relay's
 * writer chains them; a relay killed between the commit and the chaining leaves them there.
 */
describe(`svc audit verify: entries waiting to be chained (${testDialect})`, () => {
  it(
    'counts them without calling the log broken; the minute\'s purges and the next start chain them, in order',
    async () => {
      await withRestartableRelay(async (relay, restart) => {
        await seedLog(relay);
        // Left by another instance, or a killed one: the running relay's minute chains it.
        await plantPending(relay, 'test.left_waiting', { n: 1 });
        await relay.app.get(ScheduledPurgesService).runAll();
        await auditSettled(relay);
        expect(await pendingCount(relay)).toBe(0);

        await plantPending(relay, 'test.left_waiting', { n: 2 });
        const chained = await entryCount(relay);
        let stopped: (CliResult & { json: Record<string, unknown> }) | undefined;
        let text: CliResult | undefined;
        await restart(async () => {
          stopped = await verifyRelay(relay);
          const env = relay.env.SVC_DATABASE_URL ? { SVC_DATABASE_URL: relay.env.SVC_DATABASE_URL } : {};
          text = await runCli(['audit', 'verify', '--data-dir', relay.dataDir], { cwd: emptyDir(), env, timeoutMs: 90_000 });
        });
        expect([stopped!.code, stopped!.json]).toEqual([0, expect.objectContaining({ ok: true, checked: chained, pending: 1 })]);
        expect(text!.stdout).toContain('1 entry waits to be chained');
        // Chained by the relay's start.
        await auditSettled(relay);
        expect(await pendingCount(relay)).toBe(0);
        const rows = (await sql(relay, "SELECT details FROM audit_entries WHERE action = 'test.left_waiting' ORDER BY id")) as { details: string }[];
        expect(rows.map((row) => JSON.parse(row.details))).toEqual([{ n: 1 }, { n: 2 }]);
        const after = await verifyRelay(relay);
        expect([after.code, after.json]).toEqual([0, expect.objectContaining({ ok: true, checked: chained + 1, pending: 0 })]);
      });
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    'never chains a waiting row the relay did not sign (written into the database by someone else): it records that it refused it',
    async () => {
      await withRestartableRelay(async (relay) => {
        await seedLog(relay);
        await plantPending(relay, 'member.deleted', { email: 'framed@example.com' }, true);
        // A time no date can hold must not stop the writer either.
        await plantPending(relay, 'member.deleted', { email: 'also@example.com' }, true, 9e15);
        await relay.app.get(ScheduledPurgesService).runAll();
        await auditSettled(relay);
        expect(await pendingCount(relay)).toBe(0);
        expect(await sql(relay, "SELECT id FROM audit_entries WHERE action = 'member.deleted'")).toEqual([]);
        const refused = (await sql(relay, "SELECT actor_label, via, details FROM audit_entries WHERE action = 'audit.pending_refused' ORDER BY id")) as { actor_label: string; via: string; details: string }[];
        expect(refused.map((row) => ({ ...row, details: JSON.parse(row.details) }))).toEqual([
          { actor_label: 'relay', via: 'system', details: expect.objectContaining({ action: 'member.deleted', actor: 'probe', target: null, at: expect.any(String) }) },
          { actor_label: 'relay', via: 'system', details: expect.objectContaining({ action: 'member.deleted', at: null }) },
        ]);
        const result = await verifyRelay(relay);
        expect([result.code, result.json]).toEqual([0, expect.objectContaining({ ok: true, pending: 0 })]);
      });
    },
    CLI_TEST_TIMEOUT_MS,
  );
});

async function entryCount(relay: TestRelay): Promise<number> {
  const [row] = (await sql(relay, 'SELECT COUNT(*) AS n FROM audit_entries')) as { n: number | string }[];
  return Number(row.n);
}

describe(`svc audit verify: the key from SVC_SECRETS_KEY (${testDialect})`, () => {
  const SECRETS_KEY = 'ab'.repeat(32);
  const ctx = useTestRelay({ SVC_SECRETS_KEY: SECRETS_KEY });

  it(
    'verifies with the variable the relay has, writes no key file, and names the key when it is missing',
    async () => {
      await ctx.members.admin();
      await seedLog(ctx.relay);
      expect(existsSync(join(ctx.relay.dataDir, 'audit-head.key'))).toBe(false);
      const withKey = await verifyRelay(ctx.relay, emptyDir(), { SVC_SECRETS_KEY: SECRETS_KEY });
      expect(withKey.json).toMatchObject({ ok: true });
      const without = await verifyRelay(ctx.relay);
      expect(without.code).toBe(1);
      expect(without.json).toMatchObject({ ok: false, reason: expect.stringContaining('SVC_SECRETS_KEY') });
      const another = await verifyRelay(ctx.relay, emptyDir(), { SVC_SECRETS_KEY: 'cd'.repeat(32) });
      expect(another.json).toMatchObject({ ok: false, reason: expect.stringContaining('another key') });
      expect(existsSync(join(ctx.relay.dataDir, 'audit-head.key'))).toBe(false);
    },
    CLI_TEST_TIMEOUT_MS,
  );
});

describe('svc audit verify: the data folder', () => {
  it(
    'exits 1 naming a folder with no relay database in it, and creates nothing',
    async () => {
      const parent = emptyDir();
      const missing = join(parent, 'no-such-folder');
      const absent = await runCli(['audit', 'verify', '--data-dir', missing], { cwd: emptyDir(), timeoutMs: 90_000 });
      expect(absent.code).toBe(1);
      expect(absent.stdout).toBe('');
      expect(absent.stderr).toContain(missing);
      expect(absent.stderr).toMatch(/no relay database/i);
      expect(existsSync(missing)).toBe(false);

      const empty = emptyDir();
      const nothing = await runCli(['audit', 'verify', '--data-dir', empty, '--json'], { cwd: emptyDir(), timeoutMs: 90_000 });
      expect(nothing.code).toBe(1);
      expect(nothing.stderr).toContain(empty);
      expect(readdirSync(empty)).toEqual([]);

      // A svc.sqlite that is not a relay's (here: empty): named, left as it was.
      const other = emptyDir();
      writeFileSync(join(other, 'svc.sqlite'), '');
      const wrong = await runCli(['audit', 'verify', '--data-dir', other], { cwd: emptyDir(), timeoutMs: 90_000 });
      expect(wrong.code).toBe(1);
      expect(wrong.stderr).toContain(other);
      expect(readdirSync(other)).toEqual(['svc.sqlite']);
      expect(statSync(join(other, 'svc.sqlite')).size).toBe(0);
    },
    CLI_TEST_TIMEOUT_MS,
  );
});

describe(`svc audit verify: output (${testDialect})`, () => {
  const ctx = useTestRelay();

  it(
    'says nothing about configuration it does not use (a webhook without a secret here)',
    async () => {
      await ctx.members.admin();
      await auditSettled(ctx.relay);
      const cwd = emptyDir();
      writeFileSync(join(cwd, 'svc.config.json'), JSON.stringify({ webhooks: [{ url: 'https://hooks.example.com/svc' }] }));
      const result = await verifyRelay(ctx.relay, cwd);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.json).toMatchObject({ ok: true });
    },
    CLI_TEST_TIMEOUT_MS,
  );
});

import { Logger } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, IncomingMessage } from 'node:http';
import { createServer, Server, Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { Client } from 'pg';
import { selfSignedCert } from '../cli/self-signed-cert';
import { AuditEvent, AUDIT_EVENT } from '../../src/audit/audit-event';
import { AuditLogService } from '../../src/audit/audit-log.service';
import { AuditLogRepository } from '../../src/audit/audit-log.repository';
import { AuditVerifier } from '../../src/audit/audit-verifier';
import { AuditMessages } from '../../src/audit/audit-recorder.listener';
import { RELAY_ACTOR } from '../../src/audit/audit-actor';
import { DAY_MS } from '../../src/common/time';
import { attachBuild } from '../support/build-fixtures';
import { TEST_PASSWORD } from '../support/factory';
import { itPostgresOnly } from '../support/test-relay';
import { useTestRelay, withTestRelay } from '../support/use-relay';
import { auditEntries, auditSettled, pendingCount, plantPending, refuseAuditInserts, refuseChaining, sql } from './audit-support';

describe('audit log: recording, reading, export, chain, retention', () => {
  const ctx = useTestRelay();

  it('records sign-ins, failed sign-ins and sign-outs with the actor, how, and the client address', async () => {
    const admin = await ctx.members.admin();
    const dev = await ctx.members.member('Developer');
    await ctx.relay.http().post('/api/v1/auth/login').send({ email: dev.email, password: 'wrong password' }).expect(401);
    await ctx.members.as(dev, 'post', '/api/v1/auth/logout').expect(200);

    const failed = await auditEntries(ctx, admin, 'action=auth.sign_in_failed');
    expect(failed[0]).toMatchObject({ actor: dev.email, actor_id: null, via: 'anonymous', client_address: '127.0.0.1', details: { reason: 'invalid_credentials' } });
    expect(JSON.stringify(failed)).not.toContain('wrong password');
    const signIns = await auditEntries(ctx, admin, `action=auth.sign_in&actor=${dev.id}`);
    expect(signIns).toHaveLength(1);
    expect(signIns[0]).toMatchObject({ actor: dev.email, via: 'cookie', target: `member:${dev.id}`, client_address: '127.0.0.1' });
    const signOut = await auditEntries(ctx, admin, `action=auth.sign_out&actor=${encodeURIComponent(dev.email)}`);
    expect(signOut).toHaveLength(1);
  });

  it('records role changes, deletions, invitations, resets and tokens, by cookie and by PAT', async () => {
    const admin = await ctx.members.admin();
    const qa = await ctx.members.member('QA');
    await ctx.members.as(admin, 'patch', `/api/v1/team/members/${qa.id}`).send({ role: 'Developer' }).expect(200);
    const invite = await ctx.members.as(admin, 'post', '/api/v1/team/invite').send({ role: 'Viewer' }).expect(201);
    expect(invite.body.token).toBeTruthy();
    await ctx.members.as(admin, 'post', `/api/v1/team/members/${qa.id}/send-reset`).expect(200);
    const pat = await ctx.members.pat(qa, 'view');
    const tokens = await ctx.members.as(qa, 'get', '/api/v1/tokens').expect(200);
    await ctx.members.as(qa, 'delete', `/api/v1/tokens/${tokens.body[0].id}`).expect(204);
    await ctx.members.withPat(pat, 'get', '/api/v1/apps').expect(401);
    await ctx.members.as(admin, 'delete', `/api/v1/team/members/${qa.id}`).expect(204);

    const about = await auditEntries(ctx, admin, `target=member:${qa.id}`);
    const actions = about.map((e) => e.action).reverse();
    expect(actions).toEqual(expect.arrayContaining(['auth.sign_in', 'member.role_changed', 'password_reset.sent', 'member.deleted']));
    expect(about.find((e) => e.action === 'member.role_changed')).toMatchObject({
      actor_id: admin.id,
      via: 'cookie',
      details: { from: 'QA', to: 'Developer', email: qa.email },
    });
    const tokenEntries = await auditEntries(ctx, admin, `action=token.&actor=${qa.id}`);
    expect(tokenEntries.map((e) => e.action).sort()).toEqual(['token.created', 'token.revoked']);
    expect(JSON.stringify(tokenEntries)).not.toContain(pat);
    const invitations = await auditEntries(ctx, admin, 'action=invitation.created');
    expect(invitations[0]).toMatchObject({ actor_id: admin.id, details: { role: 'Viewer', email: null } });
    expect(JSON.stringify(invitations)).not.toContain(invite.body.token);
  });

  it('records verdicts, labels, the deletion schedule, app deletion and team settings', async () => {
    const admin = await ctx.members.admin();
    const qa = await ctx.members.member('QA');
    const pat = await ctx.members.pat(qa, 'builds:write');
    const upload = await attachBuild(ctx.members.withPat(pat, 'post', '/api/v1/builds'), 'binary-nested.app.zip').expect(201);
    const id = upload.body.id;
    await ctx.members.as(qa, 'patch', `/api/v1/builds/${id}`).send({ status_label: 'Done', version_label: 'rc1' }).expect(200);
    await ctx.members.as(qa, 'post', `/api/v1/builds/${id}/schedule-deletion`).expect(200);
    await ctx.members.as(qa, 'delete', `/api/v1/builds/${id}/schedule-deletion`).expect(200);
    await ctx.members.as(admin, 'patch', '/api/v1/settings').field('team_name', 'Audited team').expect(200);
    await ctx.members.as(qa, 'delete', `/api/v1/apps/${upload.body.app_id}`).expect(200);

    const build = await auditEntries(ctx, admin, `target=build:${id}`);
    // One PATCH emits label and status together: on PostgreSQL they may reach the chain in either order.
    expect(build.map((e) => [e.action, e.via, e.details]).sort()).toEqual([
      ['build.deletion_cancelled', 'cookie', {}],
      ['build.deletion_scheduled', 'cookie', { delete_after: expect.any(String) }],
      ['build.label_changed', 'cookie', { from: null, to: 'rc1' }],
      ['build.status_changed', 'cookie', { from: null, to: 'Done' }],
      ['build.uploaded', 'pat', expect.objectContaining({ file: 'binary-nested.app.zip', commit: null })],
    ]);
    const app = await auditEntries(ctx, admin, `target=app:${upload.body.app_id}`);
    expect(app[0]).toMatchObject({ action: 'app.deleted', actor_id: qa.id, details: { builds: 1 } });
    const settings = await auditEntries(ctx, admin, 'action=settings.updated');
    expect(settings[0]).toMatchObject({ actor_id: admin.id, details: { team_name: 'Audited team', logo_changed: false } });
  });

  it("writes an upload's entry in the build's own transaction, chained after the answer; a refused entry refuses the upload, leaving nothing", async () => {
    const admin = await ctx.members.admin();
    const pat = await ctx.members.pat(admin, 'builds:write');
    await auditSettled(ctx.relay);
    // The chain's writer is slowed: the answer does not wait for it, the entry is committed with the build all the same.
    const repository = ctx.relay.app.get(AuditLogRepository);
    const insertChained = repository.insertChained.bind(repository);
    const slowed = jest.spyOn(repository, 'insertChained').mockImplementation(async (...args) => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      return insertChained(...args);
    });
    let first: { body: { id: number } };
    try {
      first = await attachBuild(ctx.members.withPat(pat, 'post', '/api/v1/builds'), 'literal-label.apk').expect(201);
      // Read straight from the tables, before anything waits for the writer: the commit that stored the build stored this.
      expect(await sql(ctx.relay, `SELECT action FROM audit_pending WHERE target = ?`, [`build:${first.body.id}`])).toEqual([{ action: 'build.uploaded' }]);
      expect(await sql(ctx.relay, `SELECT action FROM audit_entries WHERE target = ?`, [`build:${first.body.id}`])).toEqual([]);
      await auditSettled(ctx.relay);
    } finally {
      slowed.mockRestore();
    }
    // Chained once the writer is done, and no longer waiting.
    expect(await sql(ctx.relay, `SELECT action FROM audit_entries WHERE target = ?`, [`build:${first.body.id}`])).toEqual([{ action: 'build.uploaded' }]);
    expect(await pendingCount(ctx.relay)).toBe(0);

    // The database refuses audit entries from now on: the upload is refused with a sentence and leaves nothing (no row, no file).
    const builds = await sql(ctx.relay, 'SELECT id FROM builds ORDER BY id');
    const files = await ctx.relay.storedFiles('builds/');
    await refuseAuditInserts(ctx.relay, true);
    try {
      const refused = await attachBuild(ctx.members.withPat(pat, 'post', '/api/v1/builds'), 'string-label.apk');
      expect([refused.status, refused.body]).toEqual([503, { error: AuditMessages.notRecorded }]);
      expect(await sql(ctx.relay, 'SELECT id FROM builds ORDER BY id')).toEqual(builds);
      expect(await ctx.relay.storedFiles('builds/')).toEqual(files);
      expect(await pendingCount(ctx.relay)).toBe(0);
    } finally {
      await refuseAuditInserts(ctx.relay, false);
    }
    // And the relay goes on: the next upload lands with its entry, which GET /audit shows as soon as the upload has answered.
    const third = await attachBuild(ctx.members.withPat(pat, 'post', '/api/v1/builds'), 'string-label.apk').expect(201);
    const shown = await ctx.members.as(admin, 'get', `/api/v1/audit?target=build:${third.body.id}`).expect(200);
    expect(shown.body.items.map((entry: { action: string }) => entry.action)).toEqual(['build.uploaded']);
    await auditSettled(ctx.relay);
    expect((await ctx.relay.app.get(AuditVerifier).verify()).broken).toBeNull();
  });

  itPostgresOnly('a second PostgreSQL connection holds the chain; SQLite runs one transaction at a time, so nothing can hold it beside an upload')(
    "never holds the chain in an upload's transaction: uploads answer while another connection holds the chain's state row, and are chained once it lets go",
    async () => {
      const admin = await ctx.members.admin();
      const pat = await ctx.members.pat(admin, 'builds:write');
      await auditSettled(ctx.relay);
      const holder = new Client({ connectionString: ctx.relay.env.SVC_DATABASE_URL });
      await holder.connect();
      let ids: number[];
      try {
        await holder.query('BEGIN');
        await holder.query('SELECT * FROM audit_state FOR UPDATE');
        // Before audit_pending, each of these waited on the row until the holder let go.
        const uploads = Promise.all(['literal-label.apk', 'string-label.apk'].map((name) => attachBuild(ctx.members.withPat(pat, 'post', '/api/v1/builds'), name)));
        const answered = await Promise.race([uploads, new Promise<null>((resolve) => setTimeout(() => resolve(null), 10_000))]);
        expect(answered?.map((res) => res.status)).toEqual([201, 201]);
        ids = answered!.map((res) => res.body.id as number);
        expect(await pendingCount(ctx.relay)).toBe(2);
      } finally {
        await holder.query('COMMIT').catch(() => undefined);
        await holder.end();
      }
      await auditSettled(ctx.relay);
      const targets = (await sql(ctx.relay, `SELECT target FROM audit_entries WHERE action = 'build.uploaded' ORDER BY id`)) as { target: string }[];
      expect(targets.map((row) => row.target)).toEqual(expect.arrayContaining(ids.map((id) => `build:${id}`)));
      expect(await pendingCount(ctx.relay)).toBe(0);
      expect((await ctx.relay.app.get(AuditVerifier).verify()).broken).toBeNull();
    },
  );

  it('is for Admins only, and refuses bad filters with a clear message', async () => {
    const viewer = await ctx.members.member('Viewer');
    const dev = await ctx.members.member('Developer');
    const admin = await ctx.members.admin();
    await ctx.members.as(dev, 'get', '/api/v1/audit').expect(403);
    await ctx.members.as(viewer, 'get', '/api/v1/audit/export').expect(403);
    await ctx.relay.http().get('/api/v1/audit').expect(401);
    const pat = await ctx.members.pat(admin, 'view');
    await ctx.members.withPat(pat, 'get', '/api/v1/audit').expect(401);
    for (const [query, message] of [
      ['limit=0', 'limit must be an integer from 1 to 200'],
      ['since=yesterday', 'since must be an ISO 8601 date-time'],
      ['cursor=abc', 'cursor is not valid'],
      ['since=2026-01-02T00:00:00Z&until=2026-01-01T00:00:00Z', 'since must not be after until'],
    ]) {
      const res = await ctx.members.as(admin, 'get', `/api/v1/audit?${query}`).expect(400);
      expect(res.body).toEqual({ error: message });
    }
    const format = await ctx.members.as(admin, 'get', '/api/v1/audit/export?format=xml').expect(400);
    expect(format.body).toEqual({ error: 'format must be one of jsonl, csv' });
  });

  it('pages newest first with a cursor, and filters by time', async () => {
    const admin = await ctx.members.admin();
    const events = ctx.relay.app.get(EventEmitter2);
    // One after the other: entries emitted at once are chained in whatever order they reach the lock.
    for (let i = 0; i < 7; i++) await events.emitAsync(AUDIT_EVENT, new AuditEvent('test.paged', null, 'probe', 'system', `probe:${i}`, null, { i }));
    const seen: number[] = [];
    let cursor: string | null = '';
    while (cursor !== null) {
      const res: { body: { items: { details: { i: number } }[]; next_cursor: string | null } } = await ctx.members
        .as(admin, 'get', `/api/v1/audit?action=test.paged&limit=3${cursor ? `&cursor=${cursor}` : ''}`)
        .expect(200);
      seen.push(...res.body.items.map((e) => e.details.i));
      cursor = res.body.next_cursor;
    }
    expect(seen).toEqual([6, 5, 4, 3, 2, 1, 0]);
    const future = new Date(ctx.relay.clock.nowMs() + 60_000).toISOString();
    expect(await auditEntries(ctx, admin, `action=test.paged&since=${future}`)).toEqual([]);
    expect(await auditEntries(ctx, admin, `action=test.paged&until=${future}`)).toHaveLength(7);
  });

  it('exports JSON Lines and CSV, oldest first, with the hashes', async () => {
    const admin = await ctx.members.admin();
    const jsonl = await ctx.members.as(admin, 'get', '/api/v1/audit/export?format=jsonl&action=test.paged').expect(200);
    expect(jsonl.headers['content-type']).toMatch(/^application\/x-ndjson/);
    const lines = jsonl.text.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => l.details.i)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(lines[1].prev_hash).toBe(lines[0].hash);
    const csv = await ctx.members.as(admin, 'get', '/api/v1/audit/export?format=csv&action=test.paged').expect(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    const rows = csv.text.trim().split('\r\n');
    expect(rows[0]).toBe('id,at,actor_id,actor,via,action,target,client_address,details,prev_hash,hash');
    expect(rows).toHaveLength(8);
    expect(rows[1]).toContain('"test.paged","probe:0"');
  });

  it('keeps the chain one line when many entries are written at once', async () => {
    const events = ctx.relay.app.get(EventEmitter2);
    await Promise.all(
      Array.from({ length: 40 }, (_, i) => events.emitAsync(AUDIT_EVENT, new AuditEvent('test.burst', null, 'probe', 'system', null, null, { i }))),
    );
    await auditSettled(ctx.relay);
    const result = await ctx.relay.app.get(AuditVerifier).verify();
    expect(result.broken).toBeNull();
    expect(result.checked).toBeGreaterThan(40);
  });

  it('writes the entries appended during one event-loop turn in one commit, in arrival order', async () => {
    const events = ctx.relay.app.get(EventEmitter2);
    const repository = ctx.relay.app.get(AuditLogRepository);
    await auditSettled(ctx.relay);
    const commits = jest.spyOn(repository, 'updateState');
    const inserts = jest.spyOn(repository, 'insertChained');
    try {
      // Each from a callback of its own in the same turn, as requests answered in one turn do. On
      // SQLite a writer started at once finished each transaction before the next callback ran.
      await new Promise<void>((resolve) => {
        for (let i = 0; i < 5; i++) setImmediate(() => events.emit(AUDIT_EVENT, new AuditEvent('test.turn', null, 'probe', 'system', null, null, { i })));
        setImmediate(resolve);
      });
      await auditSettled(ctx.relay);
      expect(commits).toHaveBeenCalledTimes(1);
      // One statement for the lot (on PostgreSQL one round trip, not one an entry).
      expect(inserts.mock.calls.map(([entries]) => entries.length)).toEqual([5]);
    } finally {
      commits.mockRestore();
      inserts.mockRestore();
    }
    const rows = (await sql(ctx.relay, `SELECT details FROM audit_entries WHERE action = 'test.turn' ORDER BY id`)) as { details: unknown }[];
    expect(rows.map((row) => JSON.parse(String(row.details)).i)).toEqual([0, 1, 2, 3, 4]);
    expect((await ctx.relay.app.get(AuditVerifier).verify()).broken).toBeNull();
  });

  it('answers GET /audit while entries keep coming, with every entry appended before the request', async () => {
    // A relay of its own: thousands of entries would crowd the others' pages.
    await withTestRelay({}, async (relay, members) => {
      const admin = await members.admin();
      const events = relay.app.get(EventEmitter2);
      await auditSettled(relay);
      // A steady stream, three entries a millisecond (far past a busy relay's sign-ins and changes, within
      // what the writer chains): on PostgreSQL, where a chaining round spans turns, it is never idle meanwhile.
      let streaming = true;
      let sent = 0;
      // Entries appended before the request are told apart from those after: the page asks for them alone.
      let target = 'probe:before';
      const stream = (async () => {
        const until = Date.now() + 4000;
        while (Date.now() < until) {
          for (let k = 0; k < 3; k++) events.emit(AUDIT_EVENT, new AuditEvent('test.stream', null, 'probe', 'system', target, null, { i: sent++ }));
          await new Promise((resolve) => setTimeout(resolve, 1));
        }
        streaming = false;
      })();
      await new Promise((resolve) => setTimeout(resolve, 300));
      const before = sent;
      target = 'probe:after';
      const res = await members.as(admin, 'get', '/api/v1/audit?target=probe:before&limit=200').expect(200);
      // Answered while the stream still ran (the writer not idle), with the newest of what was appended before it was asked.
      expect(streaming).toBe(true);
      expect(res.body.items.map((entry: { details: { i: number } }) => entry.details.i)).toEqual([...Array(Math.min(before, 200)).keys()].map((k) => before - 1 - k));
      await stream;
      await auditSettled(relay);
      expect((await relay.app.get(AuditVerifier).verify()).broken).toBeNull();
    });
  });

  it('refuses the waiting entries, and goes on with the next ones, when their transaction fails before it holds the chain', async () => {
    const repository = ctx.relay.app.get(AuditLogRepository);
    const log = ctx.relay.app.get(AuditLogService);
    await auditSettled(ctx.relay);
    const refused = jest.spyOn(repository, 'state').mockRejectedValue(new Error('no connection'));
    try {
      const outcomes = await Promise.allSettled([0, 1].map((i) => log.append(new AuditEvent('test.unheld', null, 'probe', 'system', null, null, { i }))));
      expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
    } finally {
      refused.mockRestore();
    }
    await log.append(new AuditEvent('test.unheld', null, 'probe', 'system', null, null, { i: 2 }));
    const rows = (await sql(ctx.relay, `SELECT details FROM audit_entries WHERE action = 'test.unheld'`)) as { details: unknown }[];
    expect(rows.map((row) => JSON.parse(String(row.details)).i)).toEqual([2]);
  });

  it('chains the other waiting entries, an upload\'s and the queued ones when the database refuses one waiting entry; that one waits, logged, until it can go', async () => {
    const admin = await ctx.members.admin();
    const pat = await ctx.members.pat(admin, 'builds:write');
    const log = ctx.relay.app.get(AuditLogService);
    await auditSettled(ctx.relay);
    await refuseChaining(ctx.relay, 'test.unchainable', true);
    // Nest's Logger writes to the relay started last in this process (another test's): its calls are read here.
    const errors = jest.spyOn(Logger.prototype, 'error');
    let upload: { body: { id: number } };
    try {
      await plantPending(ctx.relay, 'test.unchainable', { n: 1 });
      await plantPending(ctx.relay, 'test.waiting', { n: 2 });
      // The upload's commit has the writer look at what waits; an entry queued meanwhile goes in the same round.
      upload = await attachBuild(ctx.members.withPat(pat, 'post', '/api/v1/builds'), 'literal-label.apk').expect(201);
      await expect(log.append(new AuditEvent('test.queued', null, 'probe', 'system', null, null, {}))).resolves.toBeTruthy();
      await auditSettled(ctx.relay);
      const chained = (await sql(ctx.relay, "SELECT action FROM audit_entries WHERE action IN ('test.unchainable', 'test.waiting', 'test.queued', 'build.uploaded') AND (target IS NULL OR target = ?)", [`build:${upload.body.id}`])) as { action: string }[];
      expect(chained.map((row) => row.action).sort()).toEqual(['build.uploaded', 'test.queued', 'test.waiting']);
      expect(await sql(ctx.relay, 'SELECT action FROM audit_pending')).toEqual([{ action: 'test.unchainable' }]);
      expect(errors.mock.calls.map(([message]) => String(message))).toEqual([expect.stringMatching(/^audit_pending row \d+ could not be chained \(.*chaining refused.*\): it stays waiting/)]);
      // Left out of the next rounds: a sign-in's entry is not held up by it.
      await ctx.members.login(admin.email, TEST_PASSWORD);
      await auditSettled(ctx.relay);
      expect(await pendingCount(ctx.relay)).toBe(1);
    } finally {
      errors.mockRestore();
      await refuseChaining(ctx.relay, 'test.unchainable', false);
    }
    // The minute's retry chains it once the database takes it.
    log.chainPending(true);
    await auditSettled(ctx.relay);
    expect(await pendingCount(ctx.relay)).toBe(0);
    expect(await sql(ctx.relay, "SELECT action FROM audit_entries WHERE action = 'test.unchainable'")).toEqual([{ action: 'test.unchainable' }]);
    expect((await ctx.relay.app.get(AuditVerifier).verify()).broken).toBeNull();
  });

  it('prunes past the retention, leaving an anchor from which the rest still verifies', async () => {
    const admin = await ctx.members.admin();
    const res = await ctx.members.as(admin, 'patch', '/api/v1/audit/settings').send({ retention_days: 30 }).expect(200);
    expect(res.body).toEqual({ retention_days: 30 });
    await ctx.members.as(admin, 'patch', '/api/v1/audit/settings').send({ retention_days: 0 }).expect(400);
    const before = (await auditEntries(ctx, admin)).length;
    ctx.relay.clock.advance(31 * DAY_MS);
    // The session of a month ago has ended: sign in again (the one entry newer than the cutoff).
    const signedIn = { ...admin, cookie: await ctx.members.login(admin.email, TEST_PASSWORD) };
    await auditSettled(ctx.relay);
    const removed = await ctx.relay.app.get(AuditLogService).pruneExpired(RELAY_ACTOR);
    expect(removed).toBe(before);
    const kept = await auditEntries(ctx, signedIn);
    expect(kept.map((e) => e.action)).toEqual(['audit.pruned', 'auth.sign_in']);
    expect(kept[0].details).toEqual({ entries: before });
    const result = await ctx.relay.app.get(AuditVerifier).verify();
    expect(result).toMatchObject({ broken: null, checked: 2 });
    expect(result.anchorId).not.toBeNull();
  });
});

/** A syslog collector on loopback that reads octet-counted RFC 5424 frames (RFC 6587 §3.4.1). */
function syslogCollector(tls?: { cert: string; key: string }): Promise<{ server: Server; port: number; messages: string[]; close: () => Promise<void> }> {
  const messages: string[] = [];
  const sockets = new Set<Socket>();
  const accept = (socket: Socket) => {
    sockets.add(socket);
    let buffer = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        const space = buffer.indexOf(0x20);
        if (space < 0) return;
        const length = Number(buffer.subarray(0, space).toString('ascii'));
        if (!Number.isInteger(length) || length <= 0) throw new Error(`bad frame length ${buffer.subarray(0, space)}`);
        if (buffer.length < space + 1 + length) return;
        messages.push(buffer.subarray(space + 1, space + 1 + length).toString('utf8'));
        buffer = buffer.subarray(space + 1 + length);
      }
    });
    socket.on('close', () => sockets.delete(socket));
  };
  const server: Server = tls
    ? createTlsServer({ cert: readFileSync(tls.cert), key: readFileSync(tls.key) }, accept)
    : createServer(accept);
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        server,
        port: (server.address() as { port: number }).port,
        messages,
        close: () => {
          for (const s of sockets) s.destroy();
          return new Promise((r) => server.close(() => r()));
        },
      }),
    ),
  );
}

describe('audit log: forwarding to syslog', () => {
  it('sends each entry as an RFC 5424 message, octet-counted, over TCP', async () => {
    const collector = await syslogCollector();
    try {
      await withTestRelay({ SVC_AUDIT_SYSLOG: `tcp://127.0.0.1:${collector.port}` }, async (relay, members) => {
        const admin = await members.admin();
        await relay.http().post('/api/v1/auth/login').send({ email: admin.email, password: 'nope nope' }).expect(401);
        await auditSettled(relay);
        const deadline = Date.now() + 10_000;
        // The relay's audit.head_signed at start, the Admin's sign-in, the failed one.
        while (collector.messages.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
        expect(collector.messages.length).toBeGreaterThanOrEqual(3);
        const rfc5424 = /^<110>1 (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z) (\S+) svc-relay (\d+) audit \[svc@32473 ((?:\w+="(?:[^"\\\]]|\\["\\\]])*" ?)+)\] (\{.*\})$/;
        const parsed = collector.messages.map((m) => {
          const match = rfc5424.exec(m);
          if (!match) throw new Error(`not an RFC 5424 message as sent: ${m}`);
          return { sd: match[4], entry: JSON.parse(match[5]) };
        });
        const failed = parsed.find((p) => p.entry.action === 'auth.sign_in_failed')!;
        expect(failed.sd).toContain('action="auth.sign_in_failed"');
        expect(failed.sd).toContain(`hash="${failed.entry.hash}"`);
        expect(failed.entry).toMatchObject({ actor: admin.email, via: 'anonymous' });
      });
    } finally {
      await collector.close();
    }
  });

  it('over TLS (RFC 5425), checking the collector against the configured CA', async () => {
    const { cert, key } = selfSignedCert();
    const collector = await syslogCollector({ cert, key });
    try {
      await withTestRelay({ SVC_AUDIT_SYSLOG: `tls://127.0.0.1:${collector.port}`, SVC_AUDIT_SYSLOG_CA: cert }, async (relay, members) => {
        await members.admin();
        await auditSettled(relay);
        const deadline = Date.now() + 10_000;
        while (!collector.messages.some((m) => m.includes('action="auth.sign_in"')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
        expect(collector.messages.some((m) => /^<110>1 .* svc-relay \d+ audit \[svc@32473 id="\d+" action="auth.sign_in"/.test(m))).toBe(true);
      });
    } finally {
      await collector.close();
    }
  });
});

describe('audit log: forwarding to an HTTP endpoint', () => {
  it('POSTs each entry as JSON, in order, with the configured Authorization header', async () => {
    const received: { auth: string | undefined; body: { action: string; hash: string; prev_hash: string } }[] = [];
    const server = createHttpServer((req: IncomingMessage, res) => {
      let text = '';
      req.on('data', (c) => (text += c));
      req.on('end', () => {
        received.push({ auth: req.headers.authorization, body: JSON.parse(text) });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const port = (server.address() as { port: number }).port;
    try {
      await withTestRelay(
        {
          SVC_AUDIT_HTTP_URL: `http://127.0.0.1:${port}/ingest`,
          SVC_AUDIT_HTTP_AUTHORIZATION_ENV: 'AUDIT_COLLECTOR_AUTH',
          AUDIT_COLLECTOR_AUTH: 'Bearer collector-secret',
        },
        async (relay, members) => {
          const admin = await members.admin();
          await members.as(admin, 'post', '/api/v1/auth/logout').expect(200);
          await auditSettled(relay);
          const deadline = Date.now() + 10_000;
          while (received.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
        },
      );
    } finally {
      await new Promise((r) => server.close(r));
    }
    // The first entry of a new log is the relay signing its head (docs/audit.md).
    expect(received.map((r) => r.body.action)).toEqual(['audit.head_signed', 'auth.sign_in', 'auth.sign_out']);
    expect(received[2].body.prev_hash).toBe(received[1].body.hash);
    expect(received.every((r) => r.auth === 'Bearer collector-secret')).toBe(true);
  });
});

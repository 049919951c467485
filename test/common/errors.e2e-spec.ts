import { DataSource } from 'typeorm';
import { itSqliteOnly, testDialect } from '../support/test-relay';
import { useTestRelay } from '../support/use-relay';

describe('errors are { "error": message } with the spec status', () => {
  const ctx = useTestRelay();

  it('malformed JSON → 400', async () => {
    for (const body of ['{bad', '{"email":', "{'single':1}"]) {
      const res = await ctx.relay.http().post('/api/v1/auth/login').set('Content-Type', 'application/json').send(body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'Malformed JSON body' });
    }
  });

  it('a JSON body that is not an object → 400', async () => {
    for (const body of ['"text"', 'null', '42']) {
      const res = await ctx.relay.http().post('/api/v1/auth/login').set('Content-Type', 'application/json').send(body);
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual(expect.any(String));
    }
    const array = await ctx.relay.http().post('/api/v1/auth/login').set('Content-Type', 'application/json').send('[]');
    expect(array.status).toBe(400);
  });

  it('unknown routes and methods → 404 Not found', async () => {
    for (const [method, path] of [
      ['get', '/api/v1/nowhere'],
      ['post', '/api/v1/nowhere'],
      ['get', '/api/v2/auth/status'],
      ['get', '/nowhere.txt'], // a file path: extension-less GETs outside /api belong to the dashboard
      ['put', '/api/v1/auth/login'],
      ['delete', '/api/v1/auth/me'],
    ] as const) {
      const res = await ctx.relay.http()[method](path);
      expect({ method, path, status: res.status, body: res.body }).toEqual({
        method,
        path,
        status: 404,
        body: { error: 'Not found' },
      });
    }
  });

  it('a JSON body over 1 MB → 413', async () => {
    const res = await ctx.relay
      .http()
      .post('/api/v1/auth/login')
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ email: 'a@example.com', password: 'x'.repeat(1_100_000) }));
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ error: 'Request body too large' });
  });

  it('an unsupported charset → 415', async () => {
    const res = await ctx.relay
      .http()
      .post('/api/v1/auth/login')
      .set('Content-Type', 'application/json; charset=klingon')
      .send('{}');
    expect(res.status).toBe(415);
    expect(res.body).toEqual({ error: 'Unsupported body charset' });
  });

  it('an unexpected failure (the database loses a table) → 500 Internal server error; details only in the log', async () => {
    await ctx.relay.app.get(DataSource).query('ALTER TABLE users RENAME TO users_gone');
    try {
      const res = await ctx.relay.http().get('/api/v1/auth/status');
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ error: 'Internal server error' });
      expect(res.text).not.toMatch(/users|SQLITE|no such table|relation|does not exist/i);
      const log = ctx.relay.logger.buffer.tail(50).join('\n');
      const driverMessage = testDialect === 'postgres' ? 'relation \\"users\\" does not exist' : 'no such table: users';
      expect(log).toContain(driverMessage);
      expect(log).toMatch(/GET \/api\/v1\/auth\/status failed: /);
      expect(log).toContain('"level":"error"');
    } finally {
      await ctx.relay.app.get(DataSource).query('ALTER TABLE users_gone RENAME TO users');
    }
    await ctx.relay.http().get('/api/v1/auth/status').expect(200);
  });
});

describe('the database', () => {
  const ctx = useTestRelay();

  it('is migrated, not synchronised', async () => {
    const db = ctx.relay.app.get(DataSource);
    expect(db.options.synchronize).toBe(false);
    expect(db.options.type).toBe(testDialect === 'postgres' ? 'postgres' : 'better-sqlite3');
    const migrations = await db.query('SELECT name FROM migrations');
    expect(migrations.map((m: { name: string }) => m.name)).toContain('Foundation1700000000000');
  });

  itSqliteOnly('reads PRAGMAs and the file path of the embedded database')(
    'is SQLite in WAL mode with a busy timeout and foreign keys, in the data dir',
    async () => {
      const db = ctx.relay.app.get(DataSource);
      expect(await db.query('PRAGMA journal_mode')).toEqual([{ journal_mode: 'wal' }]);
      expect((await db.query('PRAGMA busy_timeout'))[0].timeout).toBeGreaterThanOrEqual(5000);
      expect(await db.query('PRAGMA foreign_keys')).toEqual([{ foreign_keys: 1 }]);
      expect(db.options.database).toBe(`${ctx.relay.dataDir}/svc.sqlite`);
    },
  );

  it('stores times as UTC epoch milliseconds and renders ISO 8601 with milliseconds', async () => {
    const admin = await ctx.members.admin();
    await ctx.members.pat(admin);
    const [row] = await ctx.relay.app.get(DataSource).query('SELECT created_at FROM personal_access_tokens');
    // An integer column: better-sqlite3 reads it as a number, pg reads bigint as a decimal string.
    expect(typeof row.created_at).toBe(testDialect === 'postgres' ? 'string' : 'number');
    expect(String(row.created_at)).toMatch(/^\d{13}$/);
    const [item] = (await ctx.members.as(admin, 'get', '/api/v1/tokens')).body;
    expect(item.created_at).toBe(new Date(Number(row.created_at)).toISOString());
  });
});

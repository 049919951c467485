import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { PreparingClient } from '../../src/platform/pg/prepared-client';
import { postgresPool } from '../../src/platform/typeorm/raw-connection';
import { uploadTestBuild } from '../support/builds';
import { itPostgresOnly, itSqliteOnly } from '../support/test-relay';
import { useTestRelay } from '../support/use-relay';

/**
 * On PostgreSQL the relay's connections send parameterised statements as named statements, parsed once
 * per connection (src/platform/pg/prepared-client.ts, docs/decisions.md#p2); everything else as before.
 */
describe('statements on PostgreSQL connections', () => {
  const ctx = useTestRelay();

  itPostgresOnly('SQLite keeps statements in its own cache')('a parameterised SELECT or write is prepared once and reused; statements without values are not kept', async () => {
    const member = await ctx.members.member('QA');
    const runner = ctx.relay.app.get(DataSource).createQueryRunner();
    try {
      const select = 'SELECT id, email FROM users WHERE id = $1';
      const first = await runner.query(select, [member.id]);
      const again = await runner.query(select, [member.id]);
      expect(again).toEqual(first);
      expect(first).toEqual([{ id: member.id, email: member.email }]);
      const update = 'UPDATE users SET display_name = display_name WHERE id = $1';
      await runner.query(update, [member.id]);
      await runner.query(update, [member.id]);
      await runner.query(`UPDATE users SET display_name = display_name WHERE id = ${member.id}`);
      const kept: { statement: string }[] = await runner.query(`SELECT statement FROM pg_prepared_statements WHERE name LIKE 'svc\\_%'`);
      // The connection comes from the pool: what it ran before is kept too, parameterised statements only.
      expect(kept.map((k) => k.statement)).toEqual(expect.arrayContaining([select, update]));
      expect(kept.filter((k) => k.statement.includes(`WHERE id = ${member.id}`))).toEqual([]);
      // The query builder writes its keywords in lower case: a statement is named either way.
      expect(kept.filter((k) => !/^\s*(select|insert|update|delete|with)\b/i.test(k.statement))).toEqual([]);
    } finally {
      await runner.release();
    }
  });

  // pg's pool closed a connection idle for 10 s: after a quiet spell the relay connected again and
  // prepared every statement anew, and the first collection under the new load dropped ~120 optimised
  // functions that had held the old connections (docs/decisions.md#pg-idle-connections). The pool now
  // keeps the connections it opened, up to its size.
  itPostgresOnly('SQLite has one connection')('pooled connections outlive pg\'s idle timeout', async () => {
    const pool = postgresPool(ctx.relay.app.get(DataSource));
    const before = await Promise.all(
      [1, 2, 3].map(async () => {
        const client = await pool.connect();
        try {
          return (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0];
        } finally {
          // Released only once all three are out, so that three connections exist.
          await new Promise((resolve) => setTimeout(resolve, 50));
          client.release();
        }
      }),
    );
    expect(new Set(before.map((row) => row.pid)).size).toBe(3);
    const idleTimeout = (pool as unknown as { options: { idleTimeoutMillis: number } }).options.idleTimeoutMillis;
    expect(idleTimeout).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, idleTimeout + 1_000));
    expect(pool.totalCount).toBeGreaterThanOrEqual(3);
    const alive = await pool.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE pid = ANY($1::int[])`, [before.map((row) => row.pid)]);
    expect(alive.rows.map((row) => row.pid).sort()).toEqual(before.map((row) => row.pid).sort());
  }, 30_000);

  // Generic plans forced on every statement chose sorts at a million builds (docs/decisions.md#issue-42-plans):
  // PostgreSQL's own choice plans a statement with its values first, and keeps one plan only where that costs no more.
  itPostgresOnly('SQLite has no plan cache mode')('every connection of the pool leaves each statement\'s plan to PostgreSQL (auto)', async () => {
    const dataSource = ctx.relay.app.get(DataSource);
    // Several at once, so that more than one pooled connection answers.
    const modes: { plan_cache_mode: string }[][] = await Promise.all(Array.from({ length: 4 }, () => dataSource.query('SHOW plan_cache_mode')));
    expect(modes.map(([row]) => row.plan_cache_mode)).toEqual(Array(4).fill('auto'));
    const runner = dataSource.createQueryRunner();
    try {
      const select = 'SELECT id, email FROM users WHERE id = $1 AND id > 0';
      const plans = async () => {
        const [row] = await runner.query('SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement = $1', [select]);
        return { generic: Number(row.generic_plans), custom: Number(row.custom_plans) };
      };
      for (let i = 1; i <= 3; i++) await runner.query(select, [i]);
      expect(await plans()).toEqual({ generic: 0, custom: 3 });
      // A row by primary key costs the same whatever the id: after five custom plans the generic one is kept.
      for (let i = 4; i <= 8; i++) await runner.query(select, [i]);
      expect((await plans()).generic).toBeGreaterThan(0);
    } finally {
      await runner.release();
    }
  });

  itPostgresOnly('SQLite keeps statements in its own cache')('a SELECT given as a config object (rows as arrays) is prepared too', async () => {
    const member = await ctx.members.member('QA');
    const client = new PreparingClient({ connectionString: (ctx.relay.config.database as { url: string }).url });
    await client.connect();
    try {
      const text = 'SELECT id, email FROM users WHERE id = $1 AND email IS NOT NULL';
      // As pg's Pool passes it on: (config, undefined, callback).
      const rows = await new Promise((resolve, reject) =>
        (client.query as (...args: unknown[]) => void).call(client, { text, values: [member.id], rowMode: 'array' }, undefined, (err: Error | null, res: { rows: unknown }) =>
          err ? reject(err) : resolve(res.rows),
        ),
      );
      expect(rows).toEqual([[member.id, member.email]]);
      const kept = await (client as Client).query(`SELECT statement FROM pg_prepared_statements WHERE name LIKE 'svc\\_%'`, []);
      expect(kept.rows.map((k: { statement: string }) => k.statement)).toEqual([text]);
    } finally {
      await client.end();
    }
  });
});

/**
 * On SQLite, TypeORM's finds wrote number parameters into the SQL text, a new statement for every id
 * and timestamp: the SqlExecutor binds every value and prepares each text once.
 */
describe('statements on the SQLite connection', () => {
  const ctx = useTestRelay();

  itSqliteOnly('PostgreSQL binds every parameter')(
    'sign-ins, uploads, comments and status changes prepare no new statement for new ids and times, and store integers as INTEGER',
    async () => {
      const admin = await ctx.members.admin();
      const dataSource = ctx.relay.app.get(DataSource);
      const connection = (dataSource.driver as unknown as { databaseConnection: { prepare: (...args: unknown[]) => unknown } }).databaseConnection;
      const prepare = connection.prepare;
      const prepared: string[] = [];
      connection.prepare = function (this: unknown, ...args: unknown[]) {
        prepared.push(String(args[0]));
        return prepare.apply(this, args);
      };
      const aDay = async () => {
        await ctx.members.login(admin.email);
        const build = await uploadTestBuild(ctx.members, admin);
        await ctx.members.as(admin, 'post', '/api/v1/comments').field('build_id', String(build.id)).field('body', 'looks good').expect(201);
        await ctx.members.as(admin, 'patch', `/api/v1/builds/${build.id}`).send({ status_label: 'Done' }).expect(200);
        ctx.relay.clock.advance(1_000);
      };
      try {
        await aDay();
        await aDay();
        prepared.length = 0;
        await aDay(); // new ids, new times: nothing SQLite has not planned before
        expect(prepared).toEqual([]);
      } finally {
        connection.prepare = prepare;
      }
      const [types] = await dataSource.query(
        `SELECT typeof(c.build_id) AS build_id, typeof(c.created_at) AS created_at, typeof(b.completed_at) AS completed_at
           FROM comments c JOIN builds b ON b.id = c.build_id ORDER BY c.id DESC LIMIT 1`,
      );
      expect(types).toEqual({ build_id: 'integer', created_at: 'integer', completed_at: 'integer' });
    },
  );
});

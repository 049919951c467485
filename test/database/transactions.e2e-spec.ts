import { AppCatalogue } from '../../src/app-catalogue/app-catalogue.service';
import type { Sql } from '../../src/database/sql';
import { SqlExecutor } from '../../src/database/sql-executor';
import { TransactionRunner } from '../../src/database/transaction-runner';
import { within } from '../support/deadline';
import { testDialect } from '../support/test-relay';
import { useTestRelay } from '../support/use-relay';

/**
 * Modules share a transaction without handing each other one (docs/architecture.md,
 * "Transactions"): a service's run() inside another's joins it. Run on both dialects
 * (`npm run test:postgres`), where a run() that opened a second connection instead would commit on
 * its own and these tests would fail.
 */
describe('TransactionRunner: one transaction across modules', () => {
  const ctx = useTestRelay();
  const runner = () => ctx.relay.app.get(TransactionRunner);
  const catalogue = () => ctx.relay.app.get(AppCatalogue);
  const build = (bundleId: string) => ({ appId: null, bundleId, platform: 'ios' as const, name: bundleId });
  const bundles = async () => (await catalogue().all()).map((a) => a.bundleIdKey);

  it('rolls back what a joined service wrote, and drops its after-commit work, when the outer work fails', async () => {
    const ran: string[] = [];
    await expect(
      runner().run(async () => {
        await catalogue().resolveForBuild(build('com.example.rolled-back'));
        await runner().afterCommit(() => void ran.push('after commit'));
        throw new Error('outer work failed');
      }),
    ).rejects.toThrow('outer work failed');
    expect(await bundles()).not.toContain('com.example.rolled-back');
    expect(ran).toEqual([]);
  });

  it('commits the joined writes together and runs after-commit work once, after the commit', async () => {
    const seen: string[][] = [];
    await runner().run(async () => {
      await catalogue().resolveForBuild(build('com.example.first'));
      await runner().run(async () => {
        await catalogue().resolveForBuild(build('com.example.second'));
        // Read through the data source, outside the transaction: only true after the commit.
        await runner().afterCommit(async () => void seen.push(await bundles()));
      });
    });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toEqual(expect.arrayContaining(['com.example.first', 'com.example.second']));
  });

  it('keeps the outer work when a joined run fails and the outer work handles it (a savepoint)', async () => {
    await runner().run(async () => {
      await catalogue().resolveForBuild(build('com.example.kept'));
      await runner()
        .run(async () => {
          await catalogue().resolveForBuild(build('com.example.undone'));
          throw new Error('inner failed');
        })
        .catch(() => undefined);
    });
    const all = await bundles();
    expect(all).toContain('com.example.kept');
    expect(all).not.toContain('com.example.undone');
  });

  it('join() runs in the open transaction without a savepoint: what it wrote stays when its caller swallows its failure', async () => {
    await runner().run(async () => {
      await runner()
        .join(async () => {
          await catalogue().resolveForBuild(build('com.example.joined'));
          throw new Error('inner failed');
        })
        .catch(() => undefined);
    });
    expect(await bundles()).toContain('com.example.joined');
  });

  it('join() outside a transaction opens one, rolled back when its work fails', async () => {
    await expect(
      runner().join(async () => {
        await catalogue().resolveForBuild(build('com.example.alone'));
        throw new Error('work failed');
      }),
    ).rejects.toThrow('work failed');
    expect(await bundles()).not.toContain('com.example.alone');
  });

  it('selectArrays() reads in its own transaction, and never what another one has not committed', async () => {
    const bundleId = 'com.example.arrays';
    const sql = `SELECT bundle_id_key, platform FROM apps WHERE bundle_id_key = ${testDialect === 'postgres' ? '$1' : '?'}`;
    let finish = () => undefined as void;
    const held = new Promise<void>((resolve) => (finish = resolve));
    let inside: unknown[][] = [];
    const writing = runner().run(async () => {
      await catalogue().resolveForBuild(build(bundleId));
      inside = await runner().selectArrays(sql, [bundleId]);
      await held;
    });
    while (!inside.length) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(inside).toEqual([[bundleId, 'ios']]);
    const outside = runner().selectArrays(sql, [bundleId]);
    // PostgreSQL: another connection, which does not see the uncommitted row (awaited with the event
    // deadline: were it to wait for the transaction, it would wait for ever); SQLite: one shared
    // connection, so the read still waits 100 ms on (a slow machine only waits longer).
    const early =
      testDialect === 'postgres'
        ? await within('the read outside the transaction', outside)
        : await Promise.race([outside, new Promise((resolve) => setTimeout(() => resolve('still waiting'), 100))]);
    expect(early).toEqual(testDialect === 'postgres' ? [] : 'still waiting');
    finish();
    await writing;
    expect(await runner().selectArrays(sql, [bundleId])).toEqual([[bundleId, 'ios']]);
    if (testDialect !== 'postgres') expect(await outside).toEqual([[bundleId, 'ios']]);
  });

  it('switches its async context off once no transaction is in flight, and on again for the next', async () => {
    // While an AsyncLocalStorage is on, every new promise is tagged with its stores (own symbol properties).
    const tags = () => Object.getOwnPropertySymbols(Promise.resolve()).length;
    const seen: number[] = [];
    for (let i = 0; i < 2; i++) {
      await runner().run(async () => {
        seen.push(tags());
        await runner().run(async () => void seen.push(tags())); // joined: still on
      });
      seen.push(tags());
    }
    const [inside, joined, after] = seen;
    expect(after).toBeLessThan(inside);
    expect(seen).toEqual([inside, joined, after, inside, joined, after]);
    expect(joined).toBe(inside);
  });

  it('runExplicit() hands its work the transaction and leaves the async context off; after-commit work runs after the commit, never after a rollback', async () => {
    const tags = () => Object.getOwnPropertySymbols(Promise.resolve()).length;
    const off = tags();
    const seen: { tags: number; inTransaction: boolean }[] = [];
    const after: string[][] = [];
    await runner().runExplicit(async (tx) => {
      await catalogue().resolveForBuild(build('com.example.explicit'), tx);
      seen.push({ tags: tags(), inTransaction: runner().inTransaction() });
      // Read outside the transaction: only there once it has committed.
      tx.afterCommit(async () => void after.push(await bundles()));
    });
    expect(seen).toEqual([{ tags: off, inTransaction: false }]);
    expect(after).toEqual([expect.arrayContaining(['com.example.explicit'])]);

    const dropped: string[] = [];
    await expect(
      runner().runExplicit(async (tx) => {
        await catalogue().resolveForBuild(build('com.example.explicit-undone'), tx);
        tx.afterCommit(() => void dropped.push('after commit'));
        throw new Error('explicit work failed');
      }),
    ).rejects.toThrow('explicit work failed');
    expect(await bundles()).not.toContain('com.example.explicit-undone');
    expect(dropped).toEqual([]);
  });

  it('onOneConnection() runs its statements on one connection, outside any transaction, and gives it back after (on failure too); inside a run(), in its transaction', async () => {
    const backend = testDialect === 'postgres' ? 'SELECT pg_backend_pid() AS n' : 'SELECT 1 AS n';
    const [first, second] = await runner().onOneConnection(async (on) => [await on.query(backend), await on.query(backend)]);
    expect(second).toEqual(first);
    if (testDialect === 'postgres') {
      const state = await runner().onOneConnection((on) => on.query<{ state: string }>('SELECT state FROM pg_stat_activity WHERE pid = pg_backend_pid()'));
      expect(state).toEqual([{ state: 'active' }]); // not 'idle in transaction': no BEGIN was sent
    }
    // Given back after a failure: more of them in a row than the pool has connections each still get one.
    await expect(runner().onOneConnection(async () => Promise.reject(new Error('work failed')))).rejects.toThrow('work failed');
    for (let i = 0; i < 12; i++) await within('a held connection', runner().onOneConnection((on) => on.query(backend)), 5000);
    await expect(
      runner().run(async () => {
        await catalogue().resolveForBuild(build('com.example.held-undone'));
        const seen = await runner().onOneConnection((on) => on.query<{ bundle_id_key: string }>('SELECT bundle_id_key FROM apps'));
        expect(seen.map((a) => a.bundle_id_key)).toContain('com.example.held-undone');
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await bundles()).not.toContain('com.example.held-undone');
  });

  it("runExplicit() inside an open run() is a savepoint of it, its after-commit work waiting for the outer commit", async () => {
    const seen: string[][] = [];
    await runner().run(async () => {
      await catalogue().resolveForBuild(build('com.example.outer'));
      await runner()
        .runExplicit(async (tx) => {
          await catalogue().resolveForBuild(build('com.example.inner-undone'), tx);
          throw new Error('inner failed');
        })
        .catch(() => undefined);
      await runner().runExplicit(async (tx) => {
        await catalogue().resolveForBuild(build('com.example.inner-kept'), tx);
        tx.afterCommit(async () => void seen.push(await bundles()));
      });
      expect(seen).toEqual([]);
    });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toEqual(expect.arrayContaining(['com.example.outer', 'com.example.inner-kept']));
    expect(seen[0]).not.toContain('com.example.inner-undone');
  });

  it('transactions started together each commit or roll back their own statements, and a statement outside joins none of them', async () => {
    // On SQLite's one connection, transactions that did not take turns would nest: "cannot start a
    // transaction within a transaction", or a failing one's ROLLBACK taking the others' rows (and the
    // plain statement's) with it. On PostgreSQL each has a connection of its own.
    const executor = ctx.relay.app.get(SqlExecutor);
    const at = (n: number) => (testDialect === 'postgres' ? `$${n}` : '?');
    const insert = (on: Sql, bundleId: string) =>
      on.query(`INSERT INTO apps (name, bundle_id_key, platform, created_at) VALUES (${at(1)}, ${at(2)}, 'ios', 0)`, [bundleId, bundleId]);
    const pause = () => new Promise((resolve) => setTimeout(resolve, 2));
    const kept: string[] = [];
    const undone: string[] = [];
    for (let round = 0; round < 5; round++) {
      const id = (name: string) => `com.example.together-${round}-${name}`;
      kept.push(id('a1'), id('a2'), id('b'), id('outside'), id('joined'));
      undone.push(id('c1'), id('c2'));
      const [, , failed] = await Promise.allSettled([
        runner().run(async (tx) => {
          await insert(tx, id('a1'));
          await pause();
          await insert(tx, id('a2'));
        }),
        runner().run(async (tx) => {
          await pause();
          await insert(tx, id('b'));
          await runner().run(() => catalogue().resolveForBuild(build(id('joined'))));
        }),
        runner().run(async (tx) => {
          await insert(tx, id('c1'));
          await pause();
          await insert(tx, id('c2'));
          throw new Error('c fails');
        }),
        insert(executor, id('outside')),
        executor.query('SELECT COUNT(*) AS n FROM apps'),
      ]);
      expect(failed).toEqual({ status: 'rejected', reason: new Error('c fails') });
    }
    const all = await bundles();
    expect(all).toEqual(expect.arrayContaining(kept));
    expect(all.filter((bundle) => undone.includes(bundle))).toEqual([]);
  });

  it('runs after-commit work at once outside a transaction', async () => {
    const ran: string[] = [];
    await runner().afterCommit(() => void ran.push('now'));
    expect(ran).toEqual(['now']);
  });
});

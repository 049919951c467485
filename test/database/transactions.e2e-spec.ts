import { AppCatalogue } from '../../src/app-catalogue/app-catalogue.service';
import { TransactionRunner } from '../../src/database/transaction-runner';
import { useTestRelay } from '../support/use-relay';

/**
 * Modules share a transaction without handing each other an EntityManager (docs/architecture.md,
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

  it('runs after-commit work at once outside a transaction', async () => {
    const ran: string[] = [];
    await runner().afterCommit(() => void ran.push('now'));
    expect(ran).toEqual(['now']);
  });
});

import { isUniqueViolation } from '../../src/database/unique-violation';
import { ForgeOutboxRepository } from '../../src/forges/outbox/forge-outbox.repository';
import { ForgePullRequestRepository } from '../../src/forges/pull-requests/pull-request.repository';
import { DashboardForgesRepository } from '../../src/forges/settings/dashboard-forges.repository';
import type { DesiredStatus } from '../../src/forges/status/commit-status';
import { useMediumDatabase } from './medium-database';

const status = (over: Partial<DesiredStatus> = {}): DesiredStatus =>
  ({ buildId: 1, context: 'svc/review', state: 'pending', description: 'In review', targetUrl: 'https://relay.example/builds/1', summary: null, ...over }) as DesiredStatus;

describe('forges repositories on the database (medium): dashboard forges, the status outbox, pull-request comments', () => {
  const db = useMediumDatabase({ providers: [DashboardForgesRepository, ForgeOutboxRepository, ForgePullRequestRepository] });
  const at = (ms: number) => new Date(1_800_000_000_000 + ms);

  it('dashboard forges: created with their repositories, one forge per repository, updated, removed with them', async () => {
    const forges = db().get(DashboardForgesRepository);
    const fields = { type: 'github' as const, url: 'https://api.github.com', context: 'svc', tokenSealed: 'sealed', appId: null, installationId: null, privateKeySealed: null, createdAt: at(0), updatedAt: at(0) };
    const one = await forges.create(fields, ['acme/Zed', 'acme/app']);
    expect(one).toEqual({ id: one.id, ...fields });
    const claim = await forges.create({ ...fields, url: 'https://gitlab.example/api/v4' }, ['ACME/APP']).catch((err) => err);
    expect(isUniqueViolation(claim)).toBe(true);
    expect((await forges.all()).map((f) => [f.forge.url, f.repositories])).toEqual([['https://api.github.com', ['acme/app', 'acme/Zed']]]);
    await forges.update(one.id, { context: 'svc/2', tokenSealed: null, updatedAt: at(5) }, ['acme/other']);
    expect(await forges.findOne(one.id)).toEqual({ forge: { ...one, context: 'svc/2', tokenSealed: null, updatedAt: at(5) }, repositories: ['acme/other'] });
    await forges.update(one.id, { url: 'https://ghe.example/api/v3' }, null);
    expect((await forges.findOne(one.id))?.repositories).toEqual(['acme/other']);
    expect(await forges.remove(one.id)).toBe(true);
    expect(await forges.remove(one.id)).toBe(false);
    expect(await forges.findOne(one.id)).toBeNull();
    expect(await db().rows('SELECT * FROM forge_repositories')).toEqual([]);
  });

  it('the outbox: a status queued once per change, older queued ones superseded, the cursor moved with them or not at all', async () => {
    const outbox = db().get(ForgeOutboxRepository);
    expect(await outbox.cursor()).toBeNull();
    await outbox.startCursor(10);
    const commit = { repository: 'acme/app', commit: 'a'.repeat(40) };
    expect(await outbox.enqueue([{ ...commit, status: status() }], { from: 10, to: 12 }, at(0))).toBe(1);
    expect(await outbox.enqueue([{ ...commit, status: status() }], { from: 12, to: 13 }, at(1))).toBe(0);
    expect(await outbox.cursor()).toBe(13);
    expect(await outbox.enqueue([{ ...commit, status: status({ state: 'success', description: 'Approved' }) }], null, at(2))).toBe(1);
    await expect(outbox.enqueue([{ ...commit, status: status({ state: 'failure', description: 'Rejected' }) }], { from: 99, to: 100 }, at(3))).rejects.toThrow(/cursor moved/);
    const rows = await outbox.recent(10);
    expect(rows.map((r) => [r.state, r.status])).toEqual([
      ['success', 'queued'],
      ['pending', 'superseded'],
    ]);
    expect(rows[0]).toMatchObject({ ...commit, buildId: 1, targetUrl: 'https://relay.example/builds/1', attempts: 0, nextAttemptAt: at(2), createdAt: at(2), deliveredAt: null, lastError: null });
    expect(await outbox.isOvertaken(rows[1])).toBe(true);
    expect(await outbox.isOvertaken(rows[0])).toBe(false);
    expect((await outbox.due(at(1), 10)).map((r) => r.id)).toEqual([]);
    expect((await outbox.due(at(2), 10)).map((r) => r.id)).toEqual([rows[0].id]);

    await outbox.settle(rows[1].id, { status: 'delivered' });
    expect((await outbox.statusesById([rows[1].id]))[0].status).toBe('superseded');
    await outbox.logAttempt({ outboxId: rows[0].id, forge: 'github https://api.github.com', forgeKey: 'dashboard:1', attemptedAt: at(4), statusCode: 502, error: 'Bad gateway', durationMs: 12 });
    await outbox.settle(rows[0].id, { attempts: 1, lastError: 'Bad gateway', nextAttemptAt: at(60) });
    expect(await outbox.due(at(59), 10)).toEqual([]);
    await outbox.settle(rows[0].id, { status: 'delivered', attempts: 2, deliveredAt: at(61), lastError: null });
    expect((await outbox.statusesById([rows[0].id, 424242]))[0]).toMatchObject({ status: 'delivered', attempts: 2, deliveredAt: at(61), lastError: null });

    await outbox.recordTest(
      { ...commit, context: 'svc/test', buildId: 1, state: 'success', description: 'Test', targetUrl: null, summary: '# ok', status: 'delivered', attempts: 1, nextAttemptAt: at(70), lastError: null, createdAt: at(70), deliveredAt: at(70), gateVersions: null },
      { forge: 'github https://api.github.com', forgeKey: 'dashboard:1', attemptedAt: at(70), statusCode: 201, error: null, durationMs: 3 },
    );
    const log = await outbox.attemptsOfForge('dashboard:1', 10);
    expect(log.map((a) => a.statusCode)).toEqual([201, 502]);
    expect(log[1]).toMatchObject({ outboxId: rows[0].id, attemptedAt: at(4), error: 'Bad gateway', durationMs: 12 });
    expect((await outbox.attemptsOf([log[0].outboxId, rows[0].id])).map((a) => a.statusCode)).toEqual([502, 201]);
    await outbox.forgetForge('dashboard:1');
    expect(await outbox.attemptsOfForge('dashboard:1', 10)).toEqual([]);
    expect(await outbox.attemptsOf([])).toEqual([]);
    expect(await outbox.statusesById([])).toEqual([]);
  });

  it('pull-request comments: touched (created once), written and failed only at the version they read', async () => {
    const rows = db().get(ForgePullRequestRepository);
    await rows.touch('acme/app', 7, at(0));
    const first = (await rows.find('acme/app', 7))!;
    expect(first).toMatchObject({ repository: 'acme/app', number: 7, commentId: null, installLinks: '{}', status: 'queued', version: 1, attempts: 0, nextAttemptAt: at(0), lastError: null });
    await rows.failed(first, 'rate limited', at(30));
    expect(await rows.due(at(29), 10)).toEqual([]);
    const retried = (await rows.due(at(30), 10))[0];
    expect(retried).toMatchObject({ attempts: 1, lastError: 'rate limited', version: 1 });
    await rows.touch('acme/app', 7, at(40));
    await rows.written(retried, '12345', '{"1":"https://relay.example/i/x"}');
    // Asked again meanwhile: the comment is kept, the queue state is not settled.
    expect(await rows.find('acme/app', 7)).toMatchObject({ commentId: '12345', installLinks: '{"1":"https://relay.example/i/x"}', status: 'queued', version: 2, attempts: 0 });
    const again = (await rows.find('acme/app', 7))!;
    await rows.written(again, '12345', '{}');
    expect(await rows.find('acme/app', 7)).toMatchObject({ status: 'delivered', attempts: 1, lastError: null, installLinks: '{}' });
    await rows.keepLinks(again.id, '{"2":"u"}');
    await rows.failed(again, 'gone', null);
    expect(await rows.find('acme/app', 7)).toMatchObject({ status: 'failed', attempts: 1, lastError: 'gone', installLinks: '{"2":"u"}' });
    expect(await rows.find('acme/app', 8)).toBeNull();
  });
});

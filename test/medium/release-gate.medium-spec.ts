import { ReleaseGateRepository, type NewReview } from '../../src/release-gate/release-gate.repository';
import { UsersModule } from '../../src/users/users.module';
import { UsersService } from '../../src/users/users.service';
import { useMediumDatabase } from './medium-database';
import { seedApp, seedBuild } from './seed-builds';

describe('ReleaseGateRepository on the database (medium): reviews, policies, gate states', () => {
  const db = useMediumDatabase({ imports: [UsersModule], providers: [ReleaseGateRepository] });
  const gate = () => db().get(ReleaseGateRepository);
  const at = (ms: number) => new Date(1_800_000_000_000 + ms);
  const review = (buildId: number, reviewerId: number | null, over: Partial<NewReview> = {}): NewReview => ({
    buildId,
    reviewerId,
    reviewerEmail: `r${reviewerId}@example.com`,
    reviewerDisplayName: null,
    reviewerRole: 'QA',
    verdict: 'approve',
    comment: null,
    createdAt: at(0),
    carriedFromBuildId: null,
    carriedReason: null,
    ...over,
  });

  it("keeps one current review per member, oldest first, and carries a build's reviews to its rebuild", async () => {
    const app = await seedApp(db(), 'Gate', 'com.example.gate');
    const [one, two] = [await seedBuild(db(), app), await seedBuild(db(), app)];
    const users = db().get(UsersService);
    const [ada, bob] = [await users.create({ email: 'ada@example.com', password: 'x', role: 'QA' }), await users.create({ email: 'bob@example.com', password: 'x', role: 'QA' })];
    const first = await gate().recordReview(review(one, ada.id, { verdict: 'request_changes', comment: 'crash on start', createdAt: at(1) }));
    expect(first).toMatchObject({ buildId: one, reviewerId: ada.id, comment: 'crash on start', createdAt: at(1), carriedFromBuildId: null });
    await gate().recordReview(review(one, bob.id, { createdAt: at(2) }));
    const replaced = await gate().recordReview(review(one, ada.id, { createdAt: at(3) }));
    expect(replaced.id).not.toBe(first.id);
    expect((await gate().reviewsOf(one)).map((r) => [r.reviewerId, r.verdict])).toEqual([
      [bob.id, 'approve'],
      [ada.id, 'approve'],
    ]);
    await gate().recordReview(review(two, bob.id, { verdict: 'request_changes', createdAt: at(4) }));
    expect(await gate().carryReviews(one, two, 'same commit')).toBe(1);
    const carried = await gate().reviewsOf(two);
    expect(carried.map((r) => [r.reviewerId, r.verdict, r.carriedFromBuildId, r.carriedReason])).toEqual([
      [ada.id, 'approve', one, 'same commit'],
      [bob.id, 'request_changes', null, null],
    ]);
  });

  it('keeps a policy per scope, replaced and removed', async () => {
    await gate().savePolicy('app:1', '{"approvals":1}', at(1));
    await gate().savePolicy('team', '{"approvals":2}', at(2));
    await gate().savePolicy('app:1', '{"approvals":3}', at(3));
    // A map by scope: the statement names no order.
    expect(Object.fromEntries(await gate().policies())).toEqual({
      'app:1': { policy: '{"approvals":3}', updatedAt: at(3) },
      team: { policy: '{"approvals":2}', updatedAt: at(2) },
    });
    await gate().removePolicy('app:1');
    expect([...(await gate().policies()).keys()]).toEqual(['team']);
  });

  it('saves gate states unpublished until handed on, keeps the digest, lists builds by state', async () => {
    const app = await seedApp(db(), 'States', 'com.example.states');
    const [a, b, c] = [await seedBuild(db(), app), await seedBuild(db(), app), await seedBuild(db(), app)];
    await gate().saveSha256(a, 'f'.repeat(64), at(0));
    expect(await gate().state(a)).toEqual({ buildId: a, state: 'none', checklist: '', fileSha256: 'f'.repeat(64), unpublished: false, evaluatedAt: at(0), version: 0 });
    await gate().saveState(a, 'passed', '[]', at(1));
    await gate().saveState(b, 'failed', '["x"]', at(1));
    await gate().saveState(c, 'passed', '[]', at(2));
    expect(await gate().state(a)).toEqual({ buildId: a, state: 'passed', checklist: '[]', fileSha256: 'f'.repeat(64), unpublished: true, evaluatedAt: at(1), version: 1 });
    expect(await gate().unpublished(10)).toEqual([a, b, c]);
    await gate().markPublished(a, at(1));
    await gate().markPublished(b, at(0)); // an older evaluation: b keeps its mark
    expect(await gate().unpublished(10)).toEqual([b, c]);
    expect(await gate().buildsInState('passed', 10)).toEqual([c, a]);
    expect(await gate().buildsInState('passed', 1)).toEqual([c]);
    expect((await gate().states([c, a, 424242])).map((s) => s.buildId).sort((x, y) => x - y)).toEqual([a, c]);
    expect(await gate().states([])).toEqual([]);
    expect(await gate().state(424242)).toBeNull();
  });
});

import { ReleaseGateRepository } from '../../src/release-gate/release-gate.repository';
import { uploadTestBuild } from '../support/builds';
import type { TestMember } from '../support/factory';
import { holdUncommitted, relayWaitsForLock } from '../support/pg-locks';
import { itPostgresOnly } from '../support/test-relay';
import { useTestRelay } from '../support/use-relay';

const SERIAL = 'SQLite runs one write transaction at a time, so a review and a carry never interleave';

/**
 * A member's review and the carry of a rebuild's reviews (which runs after the upload has answered)
 * write the same (build, member) row. Whichever commits first, the member's own review is the one
 * kept, and neither write fails: CI saw a review answer 500 when a carry committed under it.
 */
describe('a review racing the carry of reviews', () => {
  const ctx = useTestRelay();
  let admin: TestMember;
  let qa: TestMember;
  let other: TestMember;
  beforeAll(async () => {
    admin = await ctx.members.admin();
    qa = await ctx.members.member('QA');
    other = await ctx.members.member('QA');
  });

  const url = () => (ctx.relay.config.database as { url: string }).url;
  const reviews = async (buildId: number) =>
    (await ctx.members.as(admin, 'get', `/api/v1/builds/${buildId}/reviews`).expect(200)).body.reviews.map(
      (r: { reviewer: string; verdict: string; carried_from_build_id: number | null }) => [r.reviewer, r.verdict, r.carried_from_build_id],
    );

  /** Another connection's transaction that has written a review row of `member` for `buildId` and not committed. */
  const holdReview = (buildId: number, member: TestMember, carriedFrom: number | null) =>
    holdUncommitted(
      url(),
      `INSERT INTO build_reviews (build_id, reviewer_id, reviewer_email, reviewer_role, verdict, created_at, carried_from_build_id, carried_reason)
       VALUES ($1, $2, $3, 'QA', 'request_changes', $4, $5, $6)`,
      [buildId, member.id, member.email, Date.now(), carriedFrom, carriedFrom === null ? null : `byte-identical to build #${carriedFrom} (same SHA-256)`],
    );

  itPostgresOnly(SERIAL)("a member's review made while a carried one is being written answers 201 and replaces it", async () => {
    const earlier = await uploadTestBuild(ctx.members, admin);
    const build = await uploadTestBuild(ctx.members, admin);
    const carry = await holdReview(build.id, qa, earlier.id);
    const review = ctx.members.as(qa, 'post', `/api/v1/builds/${build.id}/reviews`).send({ verdict: 'approve' }).then((res) => res);
    await Promise.race([relayWaitsForLock(url()), review]);
    await carry.commit();
    const res = await review;
    expect([res.status, res.body.error]).toEqual([201, undefined]);
    expect(res.body).toMatchObject({ build_id: build.id, verdict: 'approve', carried_from_build_id: null });
    expect(await reviews(build.id)).toEqual([['qa-1', 'approve', null]]);
  });

  itPostgresOnly(SERIAL)("a carry made while a member's own review is being written keeps the member's and carries the rest", async () => {
    const earlier = await uploadTestBuild(ctx.members, admin);
    const rebuild = await uploadTestBuild(ctx.members, admin);
    await ctx.members.as(qa, 'post', `/api/v1/builds/${earlier.id}/reviews`).send({ verdict: 'approve' }).expect(201);
    await ctx.members.as(other, 'post', `/api/v1/builds/${earlier.id}/reviews`).send({ verdict: 'approve' }).expect(201);
    const own = await holdReview(rebuild.id, qa, null);
    const carrying = ctx.relay.app.get(ReleaseGateRepository).carryReviews(earlier.id, rebuild.id, 'byte-identical').then(
      (n) => n,
      (err: Error) => err,
    );
    await Promise.race([relayWaitsForLock(url()), carrying]);
    await own.commit();
    expect(await carrying).toBe(1);
    expect((await reviews(rebuild.id)).sort()).toEqual([
      ['qa-1', 'request_changes', null],
      ['qa-2', 'approve', earlier.id],
    ]);
  });
});

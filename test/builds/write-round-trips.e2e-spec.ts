import { DataSource } from 'typeorm';
import { postgresPool } from '../../src/platform/typeorm/raw-connection';
import { auditSettled } from '../audit/audit-support';
import { attachBuild } from '../support/build-fixtures';
import { fewestCheckouts } from '../support/pool-checkouts';
import { itPostgresOnly } from '../support/test-relay';
import { useTestRelay } from '../support/use-relay';

/**
 * The writes of the mixed load counted in pool checkouts (as test/builds/read-round-trips counts the
 * reads), with what runs after the answer: an upload is its transaction and its audit entry's
 * chaining (the entry waits in audit_pending, committed with the build, and the log's writer chains it
 * with whatever else is queued: docs/audit.md), a status change its transaction and its audit entry's. What every upload and verdict asks of the small tables (gate
 * policies, chat destinations, which apps have testers) is read once and kept until they change
 * (src/common/read-cache.ts), and with no forge configured a status change reads no provenance for
 * the forge statuses it would queue. Before (issue 42): 4 and 4; then 1 and 2, while the upload's
 * transaction held the audit chain's row through its commit (docs/decisions.md#issue-42-audit-pending).
 * A verdict (Done, Rejected) read the build before its transaction (3); a sign-in took a connection
 * for the member and another for its two-factor read (4); a comment read its build first (2).
 */
describe('writes on PostgreSQL: pool checkouts per request, with the work after the answer', () => {
  const ctx = useTestRelay();

  itPostgresOnly('the pool is PostgreSQL\'s')('an upload checks out 2 connections, a status change 2, a verdict 2, a sign-in 3, a comment 1', async () => {
    const developer = await ctx.members.member('Developer');
    const pat = await ctx.members.pat(developer, 'builds:write');
    const pool = postgresPool(ctx.relay.app.get(DataSource));
    const settle = async () => {
      await auditSettled(ctx.relay);
      await new Promise((resolve) => setTimeout(resolve, 300));
    };
    const checkouts = (request: () => Promise<unknown>) => fewestCheckouts(pool, request, settle);
    const upload = await checkouts(() => attachBuild(ctx.members.withPat(pat, 'post', '/api/v1/builds'), 'string-label.apk', { branch: 'main' }).expect(201));
    const id = (await ctx.members.withPat(pat, 'get', '/api/v1/builds?limit=1').expect(200)).body.items[0].id as number;
    let next = 0;
    const statuses = ['In Progress', 'Backlog'];
    const status = await checkouts(() => ctx.members.as(developer, 'patch', `/api/v1/builds/${id}`).send({ status_label: statuses[next++ % 2] }).expect(200));
    // A verdict asks its guards (nothing to read with no gate policy and no reason required) and no longer reads the build before its transaction.
    const verdicts = ['Done', 'Rejected'];
    const verdict = await checkouts(() => ctx.members.as(developer, 'patch', `/api/v1/builds/${id}`).send({ status_label: verdicts[next++ % 2] }).expect(200));
    // A sign-in: the member and its two-factor read on one connection (bcrypt beside the second), the session, the entry's chaining.
    const signIn = await checkouts(() => ctx.members.login(developer.email));
    // A comment: its transaction alone (the build is not read first: the foreign key answers for a missing one).
    const comment = await checkouts(() => ctx.members.as(developer, 'post', '/api/v1/comments').field('build_id', String(id)).field('body', 'looks right').expect(201));
    expect({ upload, status, verdict, signIn, comment }).toEqual({ upload: 2, status: 2, verdict: 2, signIn: 3, comment: 1 });
  });
});

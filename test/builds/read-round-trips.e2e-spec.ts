import { DataSource } from 'typeorm';
import { postgresPool } from '../../src/platform/typeorm/raw-connection';
import { images } from '../support/images';
import { fewestCheckouts } from '../support/pool-checkouts';
import { attachBuild } from '../support/build-fixtures';
import { itPostgresOnly } from '../support/test-relay';
import { useTestRelay } from '../support/use-relay';

/**
 * On PostgreSQL every statement sent outside a transaction is a checkout of a pooled connection,
 * held for an event-loop turn; under the mixed load the reads queued for the pool's connections
 * (docs/decisions.md#issue-27-pg-reads). The reads the dashboard and CI make most are counted here in
 * checkouts (pg's own `acquire` event): GET /builds/:id one (the build with its uploader, icon, flags
 * and provenance), GET /builds two (the page's ids with the total, then their rows with the
 * provenance), GET /comments one (the build's comments with their attachments, none when there is no
 * such build). The credential's lookup is none: its first use cached it (for 5 s, cleared by a
 * revocation; docs/auth.md). Before, the provenance and the comments' build and attachments
 * were statements of their own, and each credential a lookup: 3, 4 and 4.
 */
describe('reads on PostgreSQL: pool checkouts per request', () => {
  const ctx = useTestRelay();

  itPostgresOnly('the pool is PostgreSQL\'s')('GET /builds/:id, GET /builds and GET /comments check out 1, 2 and 1 connections, the credential cached', async () => {
    const developer = await ctx.members.member('Developer');
    const pat = await ctx.members.pat(developer, 'builds:write');
    const uploaded = await attachBuild(ctx.members.withPat(pat, 'post', '/api/v1/builds'), 'string-label.apk', { branch: 'main', commit: 'a'.repeat(40) }).expect(201);
    const id = uploaded.body.id as number;
    for (const body of ['first', 'second']) {
      await ctx.members.as(developer, 'post', '/api/v1/comments').field('build_id', String(id)).field('body', body).attach('attachment', images.png(), 'p.png').expect(201);
    }
    const pool = postgresPool(ctx.relay.app.get(DataSource));
    const checkouts = (request: () => Promise<unknown>) => fewestCheckouts(pool, request);
    const detail = await checkouts(async () => {
      const res = await ctx.members.withPat(pat, 'get', `/api/v1/builds/${id}`).expect(200);
      expect(res.body.provenance).toMatchObject({ branch: 'main', commit: 'a'.repeat(40) });
    });
    const page = await checkouts(async () => {
      const res = await ctx.members.withPat(pat, 'get', '/api/v1/builds').expect(200);
      expect(res.body.items.find((b: { id: number }) => b.id === id).provenance).toMatchObject({ branch: 'main' });
    });
    const comments = await checkouts(async () => {
      const res = await ctx.members.as(developer, 'get', `/api/v1/comments?build_id=${id}`).expect(200);
      expect(res.body.map((c: { body: string; attachments: unknown[] }) => [c.body, c.attachments.length])).toEqual([
        ['first', 1],
        ['second', 1],
      ]);
    });
    expect({ detail, page, comments }).toEqual({ detail: 1, page: 2, comments: 1 });
  });

  it('GET /comments of a build without comments is an empty list; of no build, 404', async () => {
    const developer = await ctx.members.member('Developer');
    const pat = await ctx.members.pat(developer, 'builds:write');
    const id = (await attachBuild(ctx.members.withPat(pat, 'post', '/api/v1/builds'), 'string-label.apk', {}).expect(201)).body.id as number;
    expect((await ctx.members.as(developer, 'get', `/api/v1/comments?build_id=${id}`).expect(200)).body).toEqual([]);
    expect((await ctx.members.as(developer, 'get', `/api/v1/comments?build_id=${id + 1000}`).expect(404)).body).toEqual({ error: expect.any(String) });
  });
});

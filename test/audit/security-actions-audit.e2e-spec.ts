import { attachBuild } from '../support/build-fixtures';
import type { TestMember } from '../support/factory';
import { useTestRelay } from '../support/use-relay';
import { auditEntries } from './audit-support';

const SHA = '9fceb02d0ae598e95dc970b74767f19372d61af8';
const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';

/**
 * Issue 36 item 12: uploads, share links, comment deletion and SCIM writes are in the audit log,
 * each with who did it, how, what it acted on and the details that matter (docs/audit.md).
 */
describe('audit log: uploads, share links, comments, SCIM', () => {
  const ctx = useTestRelay({ SVC_RELAY_URL: 'https://relay.example.com' });
  let admin: TestMember;
  let developer: TestMember;
  let buildId: number;

  beforeAll(async () => {
    admin = await ctx.members.admin();
    developer = await ctx.members.member('Developer');
    const pat = await ctx.members.pat(developer, 'builds:write');
    const fields = { branch: 'feature/login', commit: SHA, repository: 'acme/app', pull_request: '42', ci_url: 'https://ci.example.com/runs/7' };
    const res = await attachBuild(ctx.members.withPat(pat, 'post', '/api/v1/builds'), 'string-label.apk', fields).expect(201);
    buildId = res.body.id;
  });

  it('records an upload: who, with which credential, which build, and its provenance as sent', async () => {
    const [entry, ...more] = await auditEntries(ctx, admin, 'action=build.uploaded');
    expect(more).toEqual([]);
    expect(entry).toMatchObject({
      actor_id: developer.id,
      actor: developer.email,
      via: 'pat',
      target: `build:${buildId}`,
      client_address: '127.0.0.1',
      details: {
        file: 'string-label.apk',
        branch: 'feature/login',
        commit: SHA,
        repository: 'acme/app',
        pull_request: 42,
        ci_url: 'https://ci.example.com/runs/7',
      },
    });
    expect(entry.details).toEqual(expect.objectContaining({ app_id: expect.any(Number), bytes: expect.any(Number) }));
  });

  it('records a share link made and revoked, never its token', async () => {
    const created = await ctx.members.as(developer, 'post', `/api/v1/builds/${buildId}/share-links`).send({ expires_in_days: 3 }).expect(201);
    const token = /\/install\/([0-9a-f]{64})$/.exec(created.body.url)![1];
    await ctx.members.as(admin, 'delete', `/api/v1/builds/${buildId}/share-links/${created.body.id}`).expect(204);
    // A second revocation changes nothing and records nothing.
    await ctx.members.as(admin, 'delete', `/api/v1/builds/${buildId}/share-links/${created.body.id}`).expect(204);

    const entries = await auditEntries(ctx, admin, `target=share_link:${created.body.id}`);
    expect(entries.map((e) => e.action)).toEqual(['share_link.revoked', 'share_link.created']);
    expect(entries[1]).toMatchObject({
      actor_id: developer.id,
      via: 'cookie',
      details: { build_id: buildId, expires_at: created.body.expires_at, for: developer.email },
    });
    expect(entries[0]).toMatchObject({ actor_id: admin.id, via: 'cookie', details: { build_id: buildId, downloads: 0 } });
    expect(JSON.stringify(entries)).not.toContain(token);
  });

  it('records a comment deleted by an Admin, naming its author and build', async () => {
    const posted = await ctx.members.as(developer, 'post', '/api/v1/comments').field('build_id', String(buildId)).field('body', 'crashes on launch').expect(201);
    await ctx.members.as(admin, 'delete', `/api/v1/comments/${posted.body.id}`).expect(204);
    const entries = await auditEntries(ctx, admin, 'action=comment.deleted');
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      actor_id: admin.id,
      via: 'cookie',
      target: `comment:${posted.body.id}`,
      details: { build_id: buildId, author_id: developer.id, attachments: 0 },
    });
    expect(JSON.stringify(entries)).not.toContain('crashes on launch');
  });

  it('records each SCIM write with the token that made it and the client address; reads are not recorded', async () => {
    const issued = (await ctx.members.as(admin, 'post', '/api/v1/scim/tokens').send({ name: 'Okta' }).expect(201)).body;
    const scim = (method: 'get' | 'post' | 'delete', path: string) =>
      ctx.relay.http()[method](`/scim/v2${path}`).set('Authorization', `Bearer ${issued.token}`).set('Content-Type', 'application/scim+json');
    const before = (await auditEntries(ctx, admin)).length;
    await scim('get', '/Users').expect(200);
    expect(await auditEntries(ctx, admin)).toHaveLength(before);

    const user = (await scim('post', '/Users').send(JSON.stringify({ schemas: [USER], userName: 'ada@corp.example', active: true })).expect(201)).body;
    const group = (await scim('post', '/Groups').send(JSON.stringify({ schemas: [GROUP], displayName: 'mobile-devs', members: [{ value: user.id }] })).expect(201)).body;
    await scim('delete', `/Groups/${group.id}`).expect(204);

    const entries = await auditEntries(ctx, admin, 'action=scim.');
    expect(entries.map((e) => e.action)).toEqual(['scim.group_deleted', 'scim.group_created', 'scim.user_created', 'scim.token_created']);
    for (const entry of entries.slice(0, 3)) {
      expect(entry).toMatchObject({ actor_id: null, actor: 'scim:Okta', via: 'scim', client_address: '127.0.0.1', details: { scim_token_id: issued.id } });
    }
    expect(entries[2]).toMatchObject({ target: `member:${user.id}`, details: { email: 'ada@corp.example' } });
    expect(entries[1].target).toBe(`scim_group:${group.id}`);
    expect(entries[3]).toMatchObject({ actor_id: admin.id, via: 'cookie', target: `scim_token:${issued.id}` });

    // Deleting the member goes through the Team page's removal: its entry names no member as actor either.
    await scim('delete', `/Users/${user.id}`).expect(204);
    const [deleted] = await auditEntries(ctx, admin, 'action=member.deleted');
    expect(deleted).toMatchObject({ actor_id: null, actor: 'scim:Okta', via: 'scim', target: `member:${user.id}` });
  });
});

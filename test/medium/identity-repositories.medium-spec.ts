import { DAY_MS, HOUR_MS } from '../../src/common/time';
import { SsoIdentitiesRepository } from '../../src/identity/sso-identities.repository';
import { SsoIdentityEntity } from '../../src/identity/sso-identity.entity';
import { InvitationEntity } from '../../src/invitations/invitation.entity';
import { InvitationsRepository } from '../../src/invitations/invitations.repository';
import { PasswordResetEntity } from '../../src/password-reset/password-reset.entity';
import { PasswordResetRepository } from '../../src/password-reset/password-reset.repository';
import { ScimGroupEntity } from '../../src/scim/scim-group.entity';
import { ScimGroupsRepository } from '../../src/scim/scim-groups.repository';
import { isUniqueViolation } from '../../src/database/unique-violation';
import { UsersModule } from '../../src/users/users.module';
import { UsersService } from '../../src/users/users.service';
import { useMediumDatabase } from './medium-database';

describe('identity repositories on the database (medium): SSO identities, SCIM groups, invitations, password resets', () => {
  const db = useMediumDatabase({
    imports: [UsersModule],
    providers: [SsoIdentitiesRepository, ScimGroupsRepository, InvitationsRepository, PasswordResetRepository],
    entities: [SsoIdentityEntity, ScimGroupEntity, InvitationEntity, PasswordResetEntity],
  });
  const member = (email: string) => db().get(UsersService).create({ email, password: 'x', role: 'Viewer' });

  it('SSO identities: linked member, one link per provider, SCIM-provisioned members in bulk', async () => {
    const identities = db().get(SsoIdentitiesRepository);
    const [ada, bob] = [await member('ada@example.com'), await member('bob@example.com')];
    const now = db().clock.now();
    await identities.insert({ userId: ada.id, provider: 'oidc', subject: 'iss sub-1', createdAt: now });
    await identities.insert({ userId: bob.id, provider: 'scim', subject: `scim ${bob.id}`, createdAt: now });
    expect(await identities.memberOf('oidc', 'iss sub-1')).toBe(ada.id);
    expect(await identities.memberOf('ldap', 'iss sub-1')).toBeNull();
    expect(await identities.exists(ada.id, 'oidc')).toBe(true);
    expect(await identities.exists(ada.id, 'scim')).toBe(false);
    const again = await identities.insert({ userId: ada.id, provider: 'oidc', subject: 'iss sub-2', createdAt: now }).catch((err) => err);
    expect(isUniqueViolation(again)).toBe(true);
    expect([...(await identities.linkedAt('scim', [ada.id, bob.id, 999_999]))]).toEqual([bob.id]);
  });

  it('SCIM groups: saved, renamed, members added and removed in a transaction, found by member, deleted with their members', async () => {
    const groups = db().get(ScimGroupsRepository);
    const [c, d, e] = [await member('c@example.com'), await member('d@example.com'), await member('e@example.com')];
    const createdAt = db().clock.now();
    const devs = await db().transactions.run(async (tx) => {
      const id = await groups.save({ displayName: 'devs', externalId: 'x-1', createdAt }, tx);
      await groups.changeMembers(id, [c.id, d.id], [], tx);
      return id;
    });
    const ops = await db().transactions.run((tx) => groups.save({ displayName: 'ops', externalId: null, createdAt }, tx));
    await db().transactions.run((tx) => groups.changeMembers(ops, [d.id, e.id], [], tx));
    expect(await groups.findByName('devs')).toMatchObject({ id: devs, displayName: 'devs', externalId: 'x-1' });
    expect((await groups.findById(devs))?.createdAt.getTime()).toBe(createdAt.getTime());
    expect((await groups.list()).map((g) => g.displayName)).toEqual(['devs', 'ops']);
    expect(Object.fromEntries([...(await groups.memberIds())].map(([id, members]) => [id, members.sort((x, y) => x - y)]))).toEqual({
      [devs]: [c.id, d.id],
      [ops]: [d.id, e.id],
    });
    expect((await groups.groupsOf(d.id)).map((g) => g.id)).toEqual([devs, ops]);
    expect((await groups.groupsOfMembers([c.id, e.id])).sort((x, y) => x.userId - y.userId)).toEqual([
      { userId: c.id, groupId: devs, name: 'devs' },
      { userId: e.id, groupId: ops, name: 'ops' },
    ]);

    await db().transactions.run(async (tx) => {
      await groups.save({ id: devs, displayName: 'developers', externalId: null, createdAt }, tx);
      await groups.changeMembers(devs, [e.id], [c.id], tx);
    });
    expect(await groups.findById(devs)).toMatchObject({ displayName: 'developers', externalId: null });
    expect((await groups.memberIds(devs)).get(devs)?.sort((x, y) => x - y)).toEqual([d.id, e.id]);
    await groups.delete(devs);
    expect(await groups.findById(devs)).toBeNull();
    expect((await groups.groupsOf(e.id)).map((g) => g.id)).toEqual([ops]);
  });

  it('invitations: open ones newest first, claimed once, revoked only while open, expired ones purged', async () => {
    const invitations = db().get(InvitationsRepository);
    const inviter = await member('inviter@example.com');
    const now = db().clock.now();
    const invite = (hash: string, createdAt: Date) =>
      invitations.insert({ tokenHash: hash, email: null, role: 'QA', invitedBy: inviter.id, acceptedUserId: null, createdAt, expiresAt: new Date(createdAt.getTime() + 7 * DAY_MS), acceptedAt: null });
    const older = await invite('h1', new Date(now.getTime() - 8 * DAY_MS));
    const first = await invite('h2', new Date(now.getTime() - HOUR_MS));
    const second = await invite('h3', now);
    expect(second).toMatchObject({ tokenHash: 'h3', role: 'QA', invitedBy: inviter.id, email: null, acceptedAt: null });
    expect((await invitations.listOpen(now)).map((i) => i.id)).toEqual([second.id, first.id]);
    expect((await invitations.findByHash('h2'))?.id).toBe(first.id);

    const joined = await member('joined@example.com');
    expect(await db().transactions.run((tx) => invitations.claim(first.id, joined.id, now, tx))).toBe(true);
    expect(await db().transactions.run((tx) => invitations.claim(first.id, joined.id, now, tx))).toBe(false);
    expect(await db().transactions.run((tx) => invitations.claim(older.id, joined.id, now, tx))).toBe(false);
    expect((await invitations.acceptedBy(joined.id))?.id).toBe(first.id);
    expect(await invitations.deleteOpen(first.id, now)).toBe(false);
    expect(await invitations.deleteOpen(second.id, now)).toBe(true);
    expect(await invitations.deleteExpired(now)).toBe(1);
    expect(await invitations.findByHash('h1')).toBeNull();
  });

  it('password resets: one claim wins, a member’s links deleted, used and expired ones purged', async () => {
    const resets = db().get(PasswordResetRepository);
    const [f, g] = [await member('f@example.com'), await member('g@example.com')];
    const now = db().clock.now();
    const later = new Date(now.getTime() + 2 * HOUR_MS);
    await db().transactions.run(async (tx) => {
      await resets.insert({ userId: f.id, tokenHash: 'r1', createdAt: now, expiresAt: later, usedAt: null }, tx);
      await resets.insert({ userId: g.id, tokenHash: 'r2', createdAt: now, expiresAt: later, usedAt: null }, tx);
      await resets.insert({ userId: g.id, tokenHash: 'r3', createdAt: now, expiresAt: now, usedAt: null }, tx);
    });
    const r1 = (await resets.findByHash('r1'))!;
    expect(r1).toMatchObject({ userId: f.id, usedAt: null });
    expect(r1.expiresAt.getTime()).toBe(later.getTime());
    expect(await resets.claim(r1.id, now)).toBe(true);
    expect(await resets.claim(r1.id, now)).toBe(false);
    expect((await resets.findByHash('r1'))?.usedAt?.getTime()).toBe(now.getTime());
    expect(await resets.claim((await resets.findByHash('r3'))!.id, now)).toBe(false);
    expect(await resets.deleteStale(now)).toBe(2);
    await resets.deleteOf(g.id);
    expect(await resets.findByHash('r2')).toBeNull();
  });
});

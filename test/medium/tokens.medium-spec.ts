import { EventEmitter2 } from '@nestjs/event-emitter';
import type { Principal } from '../../src/common/auth/principal';
import { TokensRevokedEvent } from '../../src/tokens/events/tokens-revoked.event';
import { ScimTokensService } from '../../src/tokens/scim-tokens.service';
import { TokensModule } from '../../src/tokens/tokens.module';
import { TokensService } from '../../src/tokens/tokens.service';
import { MINUTE_MS, DAY_MS } from '../../src/common/time';
import { UsersModule } from '../../src/users/users.module';
import { UsersService } from '../../src/users/users.service';
import { useMediumDatabase } from './medium-database';

describe('TokensService, ScimTokensService and their repositories on the database (medium)', () => {
  const db = useMediumDatabase({ imports: [UsersModule, TokensModule] });
  const tokens = () => db().get(TokensService);
  const principalOf = async (email: string, role: Principal['role'] = 'Developer'): Promise<Principal> => {
    const user = await db().get(UsersService).create({ email, password: 'x', role });
    return { userId: user.id, email, role, via: 'session' } as unknown as Principal;
  };

  it('issues tokens (numbering a name in use), lists them in id order and verifies one with its owner', async () => {
    const ada = await principalOf('ada@example.com');
    const first = await tokens().issue(ada, { name: 'CI', scope: 'view,builds:write' });
    const second = await tokens().issue(ada, { name: 'CI', expiresInDays: 1 });
    expect(second.entity.name).toBe('CI (2)');
    expect(second.entity.expiresAt!.getTime() - second.entity.createdAt.getTime()).toBe(DAY_MS);
    expect((await tokens().listFor(ada.userId)).map((t) => [t.id, t.name, t.scope, t.expiresAt === null])).toEqual([
      [first.entity.id, 'CI', 'view,builds:write', true],
      [second.entity.id, 'CI (2)', second.entity.scope, false],
    ]);
    const verified = await tokens().verify(first.token);
    expect(verified).toMatchObject({ token: { id: first.entity.id, userId: ada.userId }, user: { id: ada.userId, email: 'ada@example.com' }, scopes: ['view', 'builds:write'] });
    expect(await tokens().verify(first.token.slice(0, -1) + (first.token.endsWith('A') ? 'B' : 'A'))).toBeNull();
  });

  it('records use at most once a minute, refuses expired tokens and inactive owners', async () => {
    const bob = await principalOf('bob@example.com');
    const { token, entity } = await tokens().issue(bob, { name: 'agent', expiresInDays: 1 });
    // A first use in the very millisecond of the issue would leave last use equal to creation (still "unused").
    db().clock.advance(1);
    await tokens().verify(token);
    const lastUse = async () => (await tokens().listFor(bob.userId))[0].lastUsedAt.getTime();
    const firstUse = await lastUse();
    db().clock.advance(MINUTE_MS / 2);
    await tokens().verify(token);
    expect(await lastUse()).toBe(firstUse);
    db().clock.advance(MINUTE_MS);
    await tokens().verify(token);
    expect(await lastUse()).toBeGreaterThan(firstUse + MINUTE_MS);
    db().clock.advance(DAY_MS);
    expect(await tokens().verify(token)).toBeNull();
    db().clock.advance(-DAY_MS - MINUTE_MS * 1.5 - 1);
    await db().get(UsersService).update(bob.userId, { active: false });
    expect(await tokens().verify(token)).toBeNull();
    expect(entity.id).toEqual(expect.any(Number));
  });

  it("revokes one token of its owner only, and all of a member's, announcing every id", async () => {
    const carol = await principalOf('carol@example.com');
    const dave = await principalOf('dave@example.com');
    const revoked: TokensRevokedEvent[] = [];
    db().get(EventEmitter2).on(TokensRevokedEvent.eventName, (event: TokensRevokedEvent) => revoked.push(event));
    const mine = await tokens().issue(carol, { name: 'a' });
    const others = await tokens().issue(dave, { name: 'b' });
    await expect(tokens().revoke(carol, others.entity.id)).rejects.toMatchObject({ status: 404 });
    await tokens().revoke(carol, mine.entity.id);
    await expect(tokens().revoke(carol, mine.entity.id)).rejects.toMatchObject({ status: 404 });
    const more = [await tokens().issue(dave, { name: 'c' }), await tokens().issue(dave, { name: 'd' })];
    await tokens().revokeAllFor(dave.userId, 'member_deleted');
    expect(await tokens().listFor(dave.userId)).toEqual([]);
    expect(revoked.map((e) => [e.userId, [...e.tokenIds].sort((x, y) => x - y), e.reason])).toEqual([
      [carol.userId, [mine.entity.id], 'revoked'],
      [dave.userId, [others.entity.id, ...more.map((t) => t.entity.id)], 'member_deleted'],
    ]);
  });

  it('SCIM tokens: issued, listed, verified (use recorded once a minute) and revoked', async () => {
    const admin = await principalOf('admin@example.com', 'Admin');
    const scim = db().get(ScimTokensService);
    const { token, entity } = await scim.issue(admin, 'okta');
    expect(entity).toMatchObject({ name: 'okta', createdById: admin.userId, lastUsedAt: null });
    expect((await scim.list()).map((t) => t.id)).toEqual([entity.id]);
    const verified = await scim.verify(token);
    expect(verified?.lastUsedAt).toBeInstanceOf(Date);
    expect((await scim.list())[0].lastUsedAt?.getTime()).toBe(verified!.lastUsedAt!.getTime());
    expect(await scim.verify('svc_scim_nope')).toBeNull();
    await scim.revoke(admin, entity.id);
    expect(await scim.verify(token)).toBeNull();
    await expect(scim.revoke(admin, entity.id)).rejects.toMatchObject({ status: 404 });
  });
});

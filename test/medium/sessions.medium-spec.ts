import { SessionLookups } from '../../src/auth/session-lookups';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { SessionEntity } from '../../src/auth/session.entity';
import { SessionsRepository } from '../../src/auth/sessions.repository';
import { SESSION_TTL_MS, SessionsService } from '../../src/auth/sessions.service';
import { SessionsRevokedEvent } from '../../src/auth/events/sessions-revoked.event';
import { UsersModule } from '../../src/users/users.module';
import { UsersService } from '../../src/users/users.service';
import { useMediumDatabase } from './medium-database';
import { ClusterModule } from '../../src/cluster/cluster.module';

describe('SessionsService and SessionsRepository on the database (medium)', () => {
  const db = useMediumDatabase({ imports: [UsersModule, ClusterModule], providers: [SessionsRepository, SessionsService, SessionLookups], entities: [SessionEntity] });
  const sessions = () => db().get(SessionsService);
  const member = (email: string) => db().get(UsersService).create({ email, password: 'x', role: 'Developer', displayName: 'M' });

  it('starts a session and resolves its cookie to the session with its member, in one statement', async () => {
    const ada = await member('ada@example.com');
    const { session, token } = await sessions().start(ada.id, 'oidc');
    expect(session).toMatchObject({ userId: ada.id, signInMethod: 'oidc' });
    expect(session.id).toEqual(expect.any(Number));
    const resolved = await sessions().resolve(token);
    expect(resolved).toMatchObject({ id: session.id, userId: ada.id, signInMethod: 'oidc', tokenHash: session.tokenHash });
    expect(resolved!.expiresAt.getTime() - resolved!.createdAt.getTime()).toBe(SESSION_TTL_MS);
    expect(resolved!.user).toMatchObject({ id: ada.id, email: 'ada@example.com', role: 'Developer', displayName: 'M', active: true });
    expect(await sessions().resolve('not-a-token')).toBeNull();
    expect(await sessions().resolve('')).toBeNull();
  });

  it("refuses a deactivated member's session and an expired one, leaving its row to the purge (no write on a read)", async () => {
    const bob = await member('bob@example.com');
    const { token } = await sessions().start(bob.id, 'password');
    await db().get(UsersService).update(bob.id, { active: false });
    expect(await sessions().resolve(token)).toBeNull();
    await db().get(UsersService).update(bob.id, { active: true });
    const later = await sessions().start(bob.id, 'password');
    db().clock.advance(SESSION_TTL_MS);
    try {
      const expired = await db().get(SessionsRepository).findWithMember(later.session.tokenHash);
      expect(expired?.id).toBe(later.session.id);
      expect(await sessions().resolve(later.token)).toBeNull();
      expect((await db().get(SessionsRepository).findWithMember(later.session.tokenHash))?.id).toBe(later.session.id);
      expect(await sessions().purgeExpired()).toBeGreaterThanOrEqual(1);
      expect(await db().get(SessionsRepository).findWithMember(later.session.tokenHash)).toBeNull();
    } finally {
      db().clock.advance(-SESSION_TTL_MS);
    }
  });

  it('ends one session or all of a member, announcing the ids, and purges expired ones', async () => {
    const carol = await member('carol@example.com');
    const revoked: SessionsRevokedEvent[] = [];
    db().get(EventEmitter2).on(SessionsRevokedEvent.eventName, (event: SessionsRevokedEvent) => revoked.push(event));
    const a = await sessions().start(carol.id, 'password');
    const b = await sessions().start(carol.id, 'password');
    const c = await sessions().start(carol.id, 'password');
    await sessions().end(a.session.id, carol.id);
    expect(await sessions().resolve(a.token)).toBeNull();
    await sessions().endAllFor(carol.id);
    expect(revoked.map((e) => [e.userId, [...e.sessionIds].sort((x, y) => x - y)])).toEqual([
      [carol.id, [a.session.id]],
      [carol.id, [b.session.id, c.session.id]],
    ]);
    await sessions().endAllFor(carol.id);
    expect(revoked).toHaveLength(2);

    const kept = await sessions().start(carol.id, 'password');
    db().clock.advance(-SESSION_TTL_MS - 1);
    const old = [await sessions().start(carol.id, 'password'), await sessions().start(carol.id, 'password')];
    db().clock.advance(SESSION_TTL_MS + 1);
    expect(old).toHaveLength(2);
    expect(await sessions().purgeExpired()).toBe(2);
    expect(await sessions().purgeExpired()).toBe(0);
    expect((await sessions().resolve(kept.token))?.id).toBe(kept.session.id);
  });
});

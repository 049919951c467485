import { UsersModule } from '../../src/users/users.module';
import { UsersService } from '../../src/users/users.service';
import { useMediumDatabase } from './medium-database';

describe('UsersService on the database (medium)', () => {
  const db = useMediumDatabase({ imports: [UsersModule] });
  const users = () => db().get(UsersService);

  it('creates, finds, counts and lists members', async () => {
    const ada = await users().create({ email: ' Ada@Example.com ', password: 'secret-1', role: 'Admin', displayName: '  Ada ' });
    const bob = await users().create({ email: 'bob@example.com', password: 'secret-2', role: 'Developer', breakGlass: true });
    expect(ada).toMatchObject({ email: 'ada@example.com', displayName: 'Ada', role: 'Admin', active: true, breakGlass: false, avatarPath: null });
    expect(ada.createdAt).toBeInstanceOf(Date);
    expect(await users().count()).toBe(2);
    expect((await users().findByEmail('ADA@example.com'))?.id).toBe(ada.id);
    expect((await users().findById(bob.id))).toMatchObject({ email: 'bob@example.com', breakGlass: true, displayName: null });
    expect(await users().findById(999_999)).toBeNull();
    expect((await users().list()).map((u) => u.email)).toEqual(['ada@example.com', 'bob@example.com']);
    expect((await users().findManyByIds([bob.id, ada.id, bob.id, 424242])).map((u) => u.id)).toEqual([ada.id, bob.id]);
  });

  it('counts active Admins, break-glass ones apart', async () => {
    const before = await users().countActiveAdmins();
    const glass = await users().create({ email: 'glass@example.com', password: 'x', role: 'Admin', breakGlass: true });
    const gone = await users().create({ email: 'gone@example.com', password: 'x', role: 'Admin' });
    await users().update(gone.id, { active: false });
    expect(await users().countActiveAdmins()).toBe(before + 1);
    expect(await users().countActiveAdmins({ breakGlass: true })).toBe(1);
    await users().update(glass.id, { breakGlass: false, displayName: 'Glass', scimExternalId: 'ext-1' });
    expect(await users().findById(glass.id)).toMatchObject({ breakGlass: false, displayName: 'Glass', scimExternalId: 'ext-1' });
    expect((await users().findById(gone.id))?.active).toBe(false);
  });

  it('checks passwords, refusing a deactivated member', async () => {
    const carol = await users().create({ email: 'carol@example.com', password: 'right', role: 'QA' });
    expect((await users().verifyCredentials('Carol@example.com', 'right'))?.id).toBe(carol.id);
    expect(await users().verifyCredentials('carol@example.com', 'wrong')).toBeNull();
    await users().setPassword(carol.id, 'newer');
    expect((await users().verifyCredentials('carol@example.com', 'newer'))?.id).toBe(carol.id);
    await users().update(carol.id, { active: false });
    expect(await users().verifyCredentials('carol@example.com', 'newer')).toBeNull();
    expect(await users().verifyCredentials('nobody@example.com', 'newer')).toBeNull();
  });

  it('sets roles in bulk, swaps avatars returning the previous one, lists avatar paths and deletes', async () => {
    const a = await users().create({ email: 'r1@example.com', password: 'x', role: 'QA' });
    const b = await users().create({ email: 'r2@example.com', password: 'x', role: 'QA' });
    await users().setRole([a.id, b.id], 'Developer');
    expect((await users().findManyByIds([a.id, b.id])).map((u) => u.role)).toEqual(['Developer', 'Developer']);
    expect(await users().updateReturningAvatar(a.id, { avatarPath: 'avatars/one.png' })).toEqual({ previousAvatar: null });
    expect(await users().updateReturningAvatar(a.id, { avatarPath: 'avatars/two.png', displayName: 'Ay' })).toEqual({ previousAvatar: 'avatars/one.png' });
    expect(await users().updateReturningAvatar(999_999, { avatarPath: 'avatars/x.png' })).toBeNull();
    expect(await users().avatarPaths()).toEqual(['avatars/two.png']);
    await users().delete(b.id);
    expect(await users().findById(b.id)).toBeNull();
  });

  it('creates a member without a usable password, inside a caller transaction when there is one', async () => {
    const sso = await users().createWithoutPassword({ email: 'sso@example.com', role: 'QA' });
    expect(sso.passwordHash).toMatch(/^\$2/);
    await expect(
      db().transactions.run(async () => {
        await users().insertHashed({ email: 'rolled@example.com', passwordHash: 'h', role: 'QA' });
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await users().findByEmail('rolled@example.com')).toBeNull();
  });
});

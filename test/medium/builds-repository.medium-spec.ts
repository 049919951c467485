import { BuildEntity } from '../../src/builds/build.entity';
import { BuildsRepository } from '../../src/builds/builds.repository';
import { BuildContentsRepository } from '../../src/builds/contents/build-contents.repository';
import type { BuildContents } from '../../src/inspection/build-contents';
import { UsersModule } from '../../src/users/users.module';
import { UsersService } from '../../src/users/users.service';
import { useMediumDatabase } from './medium-database';
import { seedApp, seedBuild } from './seed-builds';

/**
 * BuildsRepository's and BuildContentsRepository's single-build statements (reads, the locked
 * update, history, icons, purge and deletion, contents, comparison lookups, settings) on a real
 * database: the rows come back as the entities the services use (Dates, numbers, parsed JSON).
 */
describe('BuildsRepository and BuildContentsRepository on the database (medium)', () => {
  const db = useMediumDatabase({ imports: [UsersModule], providers: [BuildsRepository, BuildContentsRepository] });
  const builds = () => db().get(BuildsRepository);
  const contents = () => db().get(BuildContentsRepository);
  const T = 1_800_000_000_000;
  const at = (minute: number) => new Date(T + minute * 60_000);

  const newBuild = (appId: number, over: Partial<BuildEntity> = {}): Omit<BuildEntity, 'id' | 'app'> => ({
    appId,
    name: 'Maps',
    versionName: '1.0.0',
    buildNumber: '10',
    versionLabel: null,
    statusLabel: null,
    platform: 'ios',
    bundleId: 'com.example.maps',
    fileName: `${Math.random().toString(36).slice(2)}.ipa`,
    originalName: 'Maps.ipa',
    fileSize: 5_000_000_000,
    uploadedAt: at(1),
    completedAt: null,
    deleteAfter: null,
    ...over,
  });

  it('inserts a build and reads it back with its types, and null for no such build', async () => {
    const app = await seedApp(db(), 'Maps', 'com.example.maps');
    const values = newBuild(app, { statusLabel: 'Done', completedAt: at(2), deleteAfter: at(3), versionLabel: 'RC' });
    const inserted = await db().transactions.run((manager) => builds().insert(values, manager));
    const found = await builds().findById(inserted.id);
    expect(found).toBeInstanceOf(BuildEntity);
    expect(found).toEqual(Object.assign(new BuildEntity(), values, { id: inserted.id }));
    expect(typeof found?.fileSize).toBe('number');
    expect(await builds().findById(999_999)).toBeNull();
  });

  it("updates under the row lock, returns before and after, and rolls back with the work alongside", async () => {
    const app = await seedApp(db(), 'Upd', 'com.example.upd');
    const id = await seedBuild(db(), app, { version_label: 'one', uploaded_at: T });
    const result = await builds().update(id, (before) => ({ versionLabel: `${before.versionLabel}+`, statusLabel: 'Done', completedAt: at(5) }));
    expect(result?.before).toMatchObject({ id, versionLabel: 'one', statusLabel: null, completedAt: expect.any(Date) });
    expect(result?.after).toMatchObject({ id, versionLabel: 'one+', statusLabel: 'Done', completedAt: at(5) });
    expect(await builds().findById(id)).toEqual(result?.after);
    expect(await builds().update(id, () => ({}))).toMatchObject({ before: result?.after, after: result?.after });
    await expect(
      builds().update(id, () => ({ completedAt: null, deleteAfter: at(9) }), async () => {
        throw new Error('alongside failed');
      }),
    ).rejects.toThrow('alongside failed');
    expect(await builds().findById(id)).toMatchObject({ completedAt: at(5), deleteAfter: null });
    await builds().update(id, () => ({ completedAt: null, deleteAfter: at(9) }));
    expect(await builds().findById(id)).toMatchObject({ completedAt: null, deleteAfter: at(9) });
    expect(await builds().update(999_999, () => ({ versionLabel: 'x' }))).toBeNull();
  });

  it("keeps the status history with each author's live account, which a deleted member leaves", async () => {
    const app = await seedApp(db(), 'Hist', 'com.example.hist');
    const id = await seedBuild(db(), app);
    const users = db().get(UsersService);
    const ada = await users.create({ email: 'ada@example.com', password: 'x', role: 'QA', displayName: 'Ada' });
    const by = { userId: ada.id, email: 'ada@example.com', displayName: 'Ada then' };
    await db().transactions.run(async (manager) => {
      await builds().recordStatus({ buildId: id, from: null, to: 'Done', by, at: at(1) }, manager);
      await builds().recordStatus({ buildId: id, from: 'Done', to: null, by, at: at(2) }, manager);
    });
    const history = await builds().historyOf(id);
    expect(history.map((h) => [h.buildId, h.fromStatus, h.toStatus, h.changedById, h.changedByDisplayName, h.changedAt])).toEqual([
      [id, null, 'Done', ada.id, 'Ada then', at(1)],
      [id, 'Done', null, ada.id, 'Ada then', at(2)],
    ]);
    expect(history[0].changedBy).toMatchObject({ id: ada.id, displayName: 'Ada', email: 'ada@example.com', active: true });
    expect(history[0].changedBy?.createdAt).toBeInstanceOf(Date);
    expect(history[0].id).toBeLessThan(history[1].id);
    await users.delete(ada.id);
    const [kept] = await builds().historyOf(id);
    expect(kept).toMatchObject({ changedById: null, changedBy: null, changedByDisplayName: 'Ada then', changedByEmail: 'ada@example.com' });
    expect(await builds().historyOf(999_999)).toEqual([]);
  });

  it("stores a build's icon and reads it back", async () => {
    const app = await seedApp(db(), 'Icon', 'com.example.icon');
    const id = await seedBuild(db(), app);
    expect(await builds().iconOf(id)).toBeNull();
    await db().transactions.run((manager) => builds().insertIcon({ buildId: id, mime: 'image/png', sha256: 'a'.repeat(64), dataBase64: 'iVBO' }, manager));
    expect(await builds().iconOf(id)).toEqual({ buildId: id, mime: 'image/png', sha256: 'a'.repeat(64), dataBase64: 'iVBO' });
  });

  it('finds the builds due for purge and deletes by ids and by app, returning what it deleted', async () => {
    const app = await seedApp(db(), 'Purge', 'com.example.purge');
    const other = await seedApp(db(), 'Other', 'com.example.other');
    const due = await seedBuild(db(), app, { file_name: 'due.ipa', delete_after: T });
    const dueNow = await seedBuild(db(), app, { file_name: 'due-now.ipa', delete_after: T + 1 });
    await seedBuild(db(), app, { file_name: 'later.ipa', delete_after: T + 2 });
    const kept = await seedBuild(db(), other, { file_name: 'kept.ipa' });
    const byId = (rows: { id: number; fileName: string }[]) => [...rows].sort((a, b) => a.id - b.id);
    expect(byId(await builds().dueForPurge(new Date(T + 1)))).toEqual([
      { id: due, fileName: 'due.ipa' },
      { id: dueNow, fileName: 'due-now.ipa' },
    ]);
    expect(byId(await builds().deleteByIds([due, 999_999, dueNow]))).toEqual([
      { id: due, fileName: 'due.ipa' },
      { id: dueNow, fileName: 'due-now.ipa' },
    ]);
    expect(await builds().deleteByIds([due])).toEqual([]);
    expect(await builds().deleteByApp(app)).toEqual([{ id: expect.any(Number), fileName: 'later.ipa' }]);
    expect(await builds().deleteByApp(app)).toEqual([]);
    expect((await builds().findById(kept))?.fileName).toBe('kept.ipa');
  });

  it("keeps a build's contents once, and an app's compare settings replaced by the last save", async () => {
    const app = await seedApp(db(), 'Contents', 'com.example.contents');
    const id = await seedBuild(db(), app);
    expect(await contents().find(id)).toBeNull();
    const data = { format: 1, platform: 'ios', fileSize: 1000, notes: ['x'] } as unknown as BuildContents;
    await contents().insert(id, data, at(1));
    // A second first read of the same build: its row is the same one, and the first stays.
    await contents().insert(id, { ...data, notes: [] }, at(2));
    const found = await db().transactions.run((manager) => contents().find(id, manager));
    expect(found).toEqual({ buildId: id, format: 1, data: JSON.stringify(data), computedAt: at(1) });
    expect(await contents().settingsOf(app)).toBeNull();
    await contents().saveSettings(app, '{"a":1}');
    await contents().saveSettings(app, '{"a":2}');
    expect(await contents().settingsOf(app)).toBe('{"a":2}');
    expect(await db().transactions.run((manager) => contents().settingsOf(app, manager))).toBe('{"a":2}');
  });

  it('finds the build before one (ties by id, on its platform, optionally Done), its sizes and its flags', async () => {
    const app = await seedApp(db(), 'Cmp', 'com.example.cmp');
    const seed = (minute: number, over: Parameters<typeof seedBuild>[2] = {}) =>
      seedBuild(db(), app, { uploaded_at: T + minute * 60_000, file_size: 1000 + minute, version_name: `v${minute}`, ...over });
    const done = await seed(1, { status_label: 'Done' });
    const android = await seed(2, { platform: 'android' });
    const tieA = await seed(3);
    const tieB = await seed(3);
    const last = await seed(4);
    const compared = await contents().build(last);
    expect(compared).toEqual({
      id: last,
      appId: app,
      platform: 'ios',
      uploadedAt: at(4),
      versionName: 'v4',
      buildNumber: null,
      statusLabel: null,
      fileName: expect.any(String),
      fileSize: 1004,
    });
    expect(await contents().build(999_999)).toBeNull();
    expect((await contents().previous(compared!))?.id).toBe(tieB);
    expect((await contents().previous((await contents().build(tieB))!))?.id).toBe(tieA);
    expect((await contents().previous(compared!, 'Done'))).toMatchObject({ id: done, statusLabel: 'Done', uploadedAt: at(1) });
    expect(await db().transactions.run(async (manager) => (await contents().previous((await contents().build(done))!, undefined, manager)))).toBeNull();

    await db().transactions.run((manager) => contents().insertFlags(last, tieB, [{ kind: 'size' } as never, { kind: 'new' } as never], manager));
    const sizes = await contents().recentSizes(app, 'ios', 2);
    expect(sizes).toEqual([
      { id: last, platform: 'ios', versionName: 'v4', buildNumber: null, uploadedAt: at(4), fileSize: 1004, flagCount: 2 },
      { id: tieB, platform: 'ios', versionName: 'v3', buildNumber: null, uploadedAt: at(3), fileSize: 1003, flagCount: 0 },
    ]);
    expect((await contents().recentSizes(app, null, 10)).map((s) => s.id)).toEqual([last, tieB, tieA, android, done]);
    expect((await contents().recentSizes(app, 'android', 10)).map((s) => s.id)).toEqual([android]);
    const flags = await contents().flagsOf([last, tieB]);
    expect([...flags]).toEqual([[last, [{ kind: 'size' }, { kind: 'new' }]]]);
    expect(await contents().flagsOf([])).toEqual(new Map());
  });
});

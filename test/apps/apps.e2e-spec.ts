import { EventEmitter2 } from '@nestjs/event-emitter';
import { BuildsDeletedEvent } from '../../src/builds/events/builds-deleted.event';
import { attachBuild, buildFiles } from '../support/build-fixtures';
import { MemberFactory, TestMember } from '../support/factory';
import { startTestRelay, TestRelay } from '../support/test-relay';

describe('apps', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  let dev: TestMember;
  let viewer: TestMember;

  beforeAll(async () => {
    relay = await startTestRelay();
    members = new MemberFactory(relay);
    dev = await members.member('Developer');
    viewer = await members.member('Viewer');
  });
  afterAll(() => relay.close());

  const upload = (file: string, fields: Record<string, string> = {}) =>
    attachBuild(members.as(dev, 'post', '/api/v1/builds'), file, fields).expect(201);
  const apps = async () => (await members.as(dev, 'get', '/api/v1/apps').expect(200)).body.items;

  it('creates, lists (with an empty summary) and renames an app', async () => {
    const created = await members
      .as(dev, 'post', '/api/v1/apps')
      .send({ name: ' Shop ', bundle_id_key: 'com.example.shop', platform: 'both' })
      .expect(201);
    expect(created.body).toEqual({ id: expect.any(Number), ok: true });
    expect((await apps()).find((a: { id: number }) => a.id === created.body.id)).toEqual({
      id: created.body.id,
      name: 'Shop',
      bundle_id_key: 'com.example.shop',
      platform: 'both',
      created_at: expect.stringMatching(/Z$/),
      latest_build_id: null,
      version_name: null,
      build_number: null,
      status_label: null,
      latest_uploaded_at: null,
      build_count: 0,
      icon_url: null,
    });
    expect((await members.as(dev, 'patch', `/api/v1/apps/${created.body.id}`).send({ name: 'Shop 2' }).expect(200)).body).toEqual({ ok: true });
    expect((await apps()).find((a: { id: number }) => a.id === created.body.id).name).toBe('Shop 2');
    await members.as(dev, 'patch', '/api/v1/apps/99999').send({ name: 'x' }).expect(404);
  });

  it.each([
    [{ bundle_id_key: 'a', platform: 'ios' }, 'name is required'],
    [{ name: '  ', bundle_id_key: 'a', platform: 'ios' }, 'name is required'],
    [{ name: 'A', platform: 'ios' }, 'bundle_id_key is required'],
    [{ name: 'A', bundle_id_key: 'a' }, 'platform must be one of ios, android, both'],
    [{ name: 'A', bundle_id_key: 'a', platform: 'web' }, 'platform must be one of ios, android, both'],
  ])('POST /apps refuses %j', async (body, message) => {
    expect((await members.as(dev, 'post', '/api/v1/apps').send(body).expect(400)).body).toEqual({ error: message });
  });

  it('refuses a rename without a name', async () => {
    const id = (await apps())[0].id;
    expect((await members.as(dev, 'patch', `/api/v1/apps/${id}`).send({}).expect(400)).body).toEqual({ error: 'name is required' });
  });

  it('resolves uploads to an app of the same bundle id on the build platform or both', async () => {
    const both = await members.as(dev, 'post', '/api/v1/apps').send({ name: 'Both', bundle_id_key: 'com.example.demo', platform: 'both' }).expect(201);
    const ios = await upload('xml-root.app.zip');
    expect(ios.body.app_id).toBe(both.body.id);
    // An android-only app with the iOS bundle id is not chosen for an iOS build.
    await members.as(dev, 'post', '/api/v1/apps').send({ name: 'Droid', bundle_id_key: 'com.example.sim', platform: 'android' }).expect(201);
    const sim = await upload('xml-nested.tgz');
    const simApp = (await apps()).find((a: { id: number }) => a.id === sim.body.app_id);
    expect(simApp).toMatchObject({ name: 'Sim', bundle_id_key: 'com.example.sim', platform: 'ios' });
  });

  it('lists each app with its latest build summary', async () => {
    relay.clock.advance(1000);
    const first = await upload('literal-label.apk', { status: 'Backlog' });
    relay.clock.advance(1000);
    const latest = await upload('literal-label.apk', { status: 'In Progress' });
    const app = (await apps()).find((a: { id: number }) => a.id === first.body.app_id);
    expect(app).toMatchObject({
      latest_build_id: latest.body.id,
      version_name: '1.2.3',
      build_number: '42',
      status_label: 'In Progress',
      latest_uploaded_at: latest.body.uploaded_at,
      build_count: 2,
      icon_url: null, // the fixture APK has no launcher icon
    });
    // Most recent activity first.
    expect((await apps())[0].id).toBe(first.body.app_id);
  });

  it('reads with a view PAT; a Viewer cannot create, rename or delete', async () => {
    const viewPat = await members.pat(viewer, 'view');
    await members.withPat(viewPat, 'get', '/api/v1/apps').expect(200);
    const writePat = await members.pat(dev, 'builds:write');
    await members.withPat(writePat, 'get', '/api/v1/apps').expect(403);
    const id = (await apps())[0].id;
    for (const res of [
      await members.as(viewer, 'post', '/api/v1/apps').send({ name: 'V', bundle_id_key: 'v', platform: 'ios' }),
      await members.as(viewer, 'patch', `/api/v1/apps/${id}`).send({ name: 'V' }),
      await members.as(viewer, 'delete', `/api/v1/apps/${id}`),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: 'Viewers have read-only access' });
    }
  });

  it('deleting an app removes its builds rows and files, and announces them', async () => {
    const a = await upload('string-label.apk');
    const b = await upload('string-label.apk');
    const other = await upload('binary-nested.app.zip');
    const files = (await buildFiles(relay)).length;
    const deleted: BuildsDeletedEvent[] = [];
    relay.app.get(EventEmitter2).on(BuildsDeletedEvent.eventName, (e: BuildsDeletedEvent) => deleted.push(e));

    expect((await members.as(dev, 'delete', `/api/v1/apps/${a.body.app_id}`).expect(200)).body).toEqual({ ok: true });
    await members.as(dev, 'get', `/api/v1/builds/${a.body.id}`).expect(404);
    await members.as(dev, 'get', `/api/v1/builds/${b.body.id}`).expect(404);
    await members.as(dev, 'get', `/api/v1/builds/${other.body.id}`).expect(200);
    expect((await buildFiles(relay))).toHaveLength(files - 2);
    expect((await apps()).some((x: { id: number }) => x.id === a.body.app_id)).toBe(false);
    expect(deleted).toEqual([new BuildsDeletedEvent([a.body.id, b.body.id], 'app_deleted')]);
    await members.as(dev, 'delete', `/api/v1/apps/${a.body.app_id}`).expect(404);
  });
});

import { DataSource } from 'typeorm';
import { attachBuild } from '../support/build-fixtures';
import { MemberFactory, TestMember } from '../support/factory';
import { startTestRelay, TestRelay } from '../support/test-relay';

/** GET /builds/:id/history (beyond the spec): who changed the status, from what, to what, when. */
describe('build status history', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  let admin: TestMember;
  let qa: TestMember;
  let viewer: TestMember;

  beforeAll(async () => {
    relay = await startTestRelay();
    members = new MemberFactory(relay);
    admin = await members.admin();
    qa = await members.member('QA');
    viewer = await members.member('Viewer');
    await members.as(qa, 'patch', '/api/v1/profile').field('display_name', 'Quinn QA').expect(200);
  });
  afterAll(() => relay.close());

  const upload = async (by: TestMember, fields: Record<string, string> = {}) =>
    (await attachBuild(members.as(by, 'post', '/api/v1/builds'), 'string-label.apk', fields).expect(201)).body.id as number;
  const setStatus = (by: TestMember, id: number, status_label: string | null) =>
    members.as(by, 'patch', `/api/v1/builds/${id}`).send({ status_label }).expect(200);
  const historyOf = async (id: number, as: TestMember = viewer) =>
    (await members.as(as, 'get', `/api/v1/builds/${id}/history`).expect(200)).body;

  it('starts with the status given at upload, then records each change with who and when', async () => {
    const before = Date.now();
    const id = await upload(admin, { status: 'Backlog' });
    await setStatus(qa, id, 'In Progress');
    await setStatus(qa, id, 'In Progress'); // no change: no entry
    await members.as(qa, 'patch', `/api/v1/builds/${id}`).send({ version_label: 'rc1' }).expect(200); // label only: no entry
    await setStatus(admin, id, 'Done');
    await setStatus(admin, id, null);

    const history = await historyOf(id);
    expect(history).toEqual([
      expect.objectContaining({ from_status: null, to_status: 'Backlog', changed_by_id: admin.id, changed_by: 'admin' }),
      expect.objectContaining({ from_status: 'Backlog', to_status: 'In Progress', changed_by_id: qa.id, changed_by: 'Quinn QA' }),
      expect.objectContaining({ from_status: 'In Progress', to_status: 'Done', changed_by_id: admin.id }),
      expect.objectContaining({ from_status: 'Done', to_status: null, changed_by_id: admin.id }),
    ]);
    for (const entry of history) {
      expect(Object.keys(entry).sort()).toEqual(
        ['changed_at', 'changed_by', 'changed_by_avatar_url', 'changed_by_id', 'from_status', 'id', 'to_status'],
      );
      expect(entry.changed_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(Date.parse(entry.changed_at)).toBeGreaterThanOrEqual(before - 1000);
    }
  });

  it('records an upload without a status, by a CI token, as its first entry', async () => {
    const pat = await members.pat(qa, 'builds:write');
    const res = await attachBuild(members.withPat(pat, 'post', '/api/v1/builds'), 'string-label.apk').expect(201);
    expect(await historyOf(res.body.id)).toEqual([
      expect.objectContaining({ from_status: null, to_status: null, changed_by_id: qa.id, changed_by: 'Quinn QA' }),
    ]);
    expect(await historyOf(res.body.id, qa)).toHaveLength(1);
    // Same access as GET /builds/:id: a builds:write PAT reads it too.
    expect((await members.withPat(pat, 'get', `/api/v1/builds/${res.body.id}/history`).expect(200)).body).toHaveLength(1);
  });

  it('names the uploader in GET /builds/:id and GET /builds (the first entry; a CI token counts as its owner)', async () => {
    const pat = await members.pat(qa, 'builds:write');
    const byToken = (await attachBuild(members.withPat(pat, 'post', '/api/v1/builds'), 'string-label.apk').expect(201)).body.id as number;
    const byAdmin = await upload(admin);
    await setStatus(admin, byToken, 'Done'); // a later change does not make admin the uploader
    const one = (await members.as(viewer, 'get', `/api/v1/builds/${byToken}`).expect(200)).body;
    expect(one).toMatchObject({ uploaded_by: 'Quinn QA', uploaded_by_id: qa.id });
    const items = (await members.as(viewer, 'get', '/api/v1/builds?limit=100').expect(200)).body.items as Record<string, unknown>[];
    expect(items.find((b) => b.id === byToken)).toMatchObject({ uploaded_by: 'Quinn QA', uploaded_by_id: qa.id });
    expect(items.find((b) => b.id === byAdmin)).toMatchObject({ uploaded_by: 'admin', uploaded_by_id: admin.id });
    // The upload response keeps the spec's summary shape.
    const summary = (await attachBuild(members.as(qa, 'post', '/api/v1/builds'), 'string-label.apk').expect(201)).body;
    expect(summary).not.toHaveProperty('uploaded_by');
    expect(summary).not.toHaveProperty('icon_url');
  });

  it('has the access of GET /builds/:id: 401 signed out, 403 with a PAT of another scope, 404 unknown, 400 bad id', async () => {
    const id = await upload(admin);
    await relay.http().get(`/api/v1/builds/${id}/history`).expect(401);
    const viewPat = await members.pat(admin, 'view');
    await members.withPat(viewPat, 'get', `/api/v1/builds/${id}/history`).expect(403);
    expect((await members.as(viewer, 'get', '/api/v1/builds/999999/history').expect(404)).body).toEqual({ error: 'Build not found' });
    expect((await members.as(viewer, 'get', '/api/v1/builds/abc/history').expect(400)).body).toEqual({ error: expect.any(String) });
  });

  it('names the uploader by their live account while it exists, then by the name the history kept', async () => {
    const dev = await members.member('Developer');
    await members.as(dev, 'patch', '/api/v1/profile').field('display_name', 'Dana Dev').expect(200);
    const id = await upload(dev, { status: 'Backlog' });
    const listed = async () =>
      ((await members.as(viewer, 'get', '/api/v1/builds?limit=100').expect(200)).body.items as Record<string, unknown>[]).find((b) => b.id === id);
    await members.as(dev, 'patch', '/api/v1/profile').field('display_name', 'Dana Renamed').expect(200);
    expect((await members.as(viewer, 'get', `/api/v1/builds/${id}`).expect(200)).body).toMatchObject({ uploaded_by: 'Dana Renamed', uploaded_by_id: dev.id });
    expect(await listed()).toMatchObject({ uploaded_by: 'Dana Renamed', uploaded_by_id: dev.id });
    await members.as(admin, 'delete', `/api/v1/team/members/${dev.id}`).expect(204);
    expect(await historyOf(id)).toEqual([expect.objectContaining({ changed_by_id: null, changed_by: 'Dana Dev', changed_by_avatar_url: null })]);
    expect((await members.as(viewer, 'get', `/api/v1/builds/${id}`).expect(200)).body).toMatchObject({ uploaded_by: 'Dana Dev', uploaded_by_id: null });
    expect(await listed()).toMatchObject({ uploaded_by: 'Dana Dev', uploaded_by_id: null });
  });

  it('goes with its build', async () => {
    const id = await upload(admin, { status: 'Backlog' });
    await setStatus(qa, id, 'Done');
    const appId = (await members.as(admin, 'get', `/api/v1/builds/${id}`).expect(200)).body.app_id;
    await members.as(admin, 'delete', `/api/v1/apps/${appId}`).expect(200);
    await members.as(viewer, 'get', `/api/v1/builds/${id}/history`).expect(404);
    const rows = await relay.app.get(DataSource).query(`SELECT COUNT(*) AS n FROM build_status_changes WHERE build_id = ${id}`);
    expect(Number(rows[0].n)).toBe(0);
  });
});

import { attachBuild } from '../support/build-fixtures';
import { MemberFactory, TestMember } from '../support/factory';
import { startTestRelay, TestRelay } from '../support/test-relay';

const REFUSAL = 'This team asks for a reason when rejecting: comment on the build first';

/** Issue 40 item 6: the team option "rejecting asks for a reason" (GET/PUT /settings/review), enforced by PATCH /builds/:id. */
describe('a reason for rejecting', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  let admin: TestMember;
  let qa: TestMember;

  beforeAll(async () => {
    relay = await startTestRelay();
    members = new MemberFactory(relay);
    admin = await members.admin();
    qa = await members.member('QA');
  });
  afterAll(() => relay.close());

  const upload = async () => (await attachBuild(members.as(admin, 'post', '/api/v1/builds'), 'string-label.apk').expect(201)).body.id as number;
  const setStatus = (by: TestMember, id: number, status_label: string) => members.as(by, 'patch', `/api/v1/builds/${id}`).send({ status_label });
  const comment = (by: TestMember, id: number) =>
    members.as(by, 'post', '/api/v1/comments').field('build_id', String(id)).field('body', 'crashes on launch').expect(201);
  const statusOf = async (id: number) => (await members.as(admin, 'get', `/api/v1/builds/${id}`).expect(200)).body.status_label;
  const require = (on: boolean) => members.as(admin, 'put', '/api/v1/settings/review').send({ reject_reason_required: on });

  it('is off by default: a build is rejected without a comment', async () => {
    expect((await members.as(qa, 'get', '/api/v1/settings/review').expect(200)).body).toEqual({ reject_reason_required: false });
    const id = await upload();
    await setStatus(qa, id, 'Rejected').expect(200);
    expect(await statusOf(id)).toBe('Rejected');
  });

  it('is changed by an Admin only, with a boolean; every member reads it', async () => {
    await members.as(qa, 'put', '/api/v1/settings/review').send({ reject_reason_required: true }).expect(403);
    expect((await require('yes' as unknown as boolean).expect(400)).body).toEqual({ error: 'reject_reason_required must be true or false' });
    expect((await require(true).expect(200)).body).toEqual({ reject_reason_required: true });
    expect((await members.as(qa, 'get', '/api/v1/settings/review').expect(200)).body).toEqual({ reject_reason_required: true });
    // The spec's GET /settings keeps its shape.
    expect(Object.keys((await members.as(qa, 'get', '/api/v1/settings').expect(200)).body).sort()).toEqual(['logo_url', 'team_name']);
  });

  it('when on, refuses Rejected (409) until the same member has commented on the build; other statuses pass', async () => {
    await require(true).expect(200);
    const id = await upload();
    expect((await setStatus(qa, id, 'Rejected').expect(409)).body).toEqual({ error: REFUSAL });
    await comment(admin, id); // someone else's comment is not this member's reason
    expect((await setStatus(qa, id, 'Rejected').expect(409)).body).toEqual({ error: REFUSAL });
    expect(await statusOf(id)).toBeNull();
    await setStatus(qa, id, 'In Progress').expect(200);
    await comment(qa, id);
    await setStatus(qa, id, 'Rejected').expect(200);
    expect(await statusOf(id)).toBe('Rejected');
    await setStatus(admin, id, 'Rejected').expect(200); // no change: nothing to refuse
    // A refused change with a label keeps neither; a build that is not there is 404 before any refusal.
    await setStatus(qa, id, 'In Progress').expect(200);
    relay.clock.advance(10 * 60_000 + 1000);
    await members.as(qa, 'patch', `/api/v1/builds/${id}`).send({ status_label: 'Rejected', version_label: 'rc1' }).expect(409);
    expect((await members.as(admin, 'get', `/api/v1/builds/${id}`).expect(200)).body).toMatchObject({ status_label: 'In Progress', version_label: null });
    expect((await setStatus(qa, id + 1000, 'Rejected').expect(404)).body).toEqual({ error: expect.stringMatching(/not found/i) });
  });

  it('counts a comment from the last 10 minutes only', async () => {
    await require(true).expect(200);
    const id = await upload();
    await comment(qa, id);
    relay.clock.advance(10 * 60_000 + 1000);
    expect((await setStatus(qa, id, 'Rejected').expect(409)).body).toEqual({ error: REFUSAL });
    await require(false).expect(200);
    await setStatus(qa, id, 'Rejected').expect(200);
  });
});

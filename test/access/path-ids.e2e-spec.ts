import { MemberFactory, TestMember } from '../support/factory';
import { startTestRelay, TestRelay } from '../support/test-relay';

/** Every `:id` path parameter is a plain positive integer; other spellings are 400, never a different row or a 500. */
describe('path ids', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  let admin: TestMember;

  beforeAll(async () => {
    relay = await startTestRelay();
    members = new MemberFactory(relay);
    admin = await members.admin();
  });
  afterAll(() => relay.close());

  const routes: [method: 'get' | 'patch' | 'delete', path: string][] = [
    ['get', '/api/v1/builds/:id'],
    ['patch', '/api/v1/builds/:id'],
    ['delete', '/api/v1/tokens/:id'],
    ['patch', '/api/v1/webhooks/:id'],
    ['delete', '/api/v1/webhooks/:id'],
    ['patch', '/api/v1/apps/:id'],
    ['delete', '/api/v1/comments/:id'],
    ['patch', '/api/v1/team/members/:id'],
  ];
  const spellings = ['1e3', '0x10', '1.0', '-1', '0', '01', '1%20', '99999999999999999999'];

  it.each(routes)('%s %s answers 400 for non-canonical ids', async (method, path) => {
    for (const id of spellings) {
      const res = await members.as(admin, method, path.replace(':id', id)).send({});
      expect({ id, status: res.status, body: res.body }).toEqual({
        id,
        status: 400,
        body: { error: 'id must be a positive integer' },
      });
    }
  });

  it('a canonical id that does not exist is 404', async () => {
    const res = await members.as(admin, 'get', '/api/v1/builds/1000');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Build not found' });
  });
});

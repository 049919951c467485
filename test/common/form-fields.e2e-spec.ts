import { uploadTestBuild } from '../support/builds';
import type { TestMember } from '../support/factory';
import { useTestRelay } from '../support/use-relay';

/**
 * Multipart text fields go through DTO classes (validateFields), with the global pipe's
 * first-message rule: one 400 naming the first failing field, checked before anything is stored.
 */
describe('multipart form fields are validated like JSON bodies', () => {
  const ctx = useTestRelay();
  let admin: TestMember;
  let buildId: number;
  const long = (n: number) => 'x'.repeat(n);

  beforeAll(async () => {
    admin = await ctx.members.admin();
    buildId = (await uploadTestBuild(ctx.members, admin)).id;
  });

  const post = (method: 'post' | 'patch', path: string, fields: Record<string, string>) => {
    const req = ctx.members.as(admin, method, path);
    for (const [name, value] of Object.entries(fields)) req.field(name, value);
    return req;
  };

  it.each([
    ['patch', '/api/v1/profile', { display_name: long(201) }, 'display_name must be at most 200 characters'],
    ['patch', '/api/v1/settings', { team_name: '   ' }, 'team_name must not be empty'],
    ['patch', '/api/v1/settings', { team_name: long(201) }, 'team_name must be at most 200 characters'],
    ['post', '/api/v1/comments', { body: 'hi' }, 'build_id must be a positive integer'],
    ['post', '/api/v1/comments', { build_id: '1e3', body: 'hi' }, 'build_id must be a positive integer'],
    ['post', '/api/v1/comments', { build_id: '1' }, 'body is required'],
    ['post', '/api/v1/comments', { build_id: '1', body: '  ' }, 'body is required'],
    ['post', '/api/v1/comments', { build_id: 'x', body: '' }, 'build_id must be a positive integer'],
  ] as const)('%s %s %j → 400 %s', async (method, path, fields, message) => {
    const res = await post(method, path, fields).expect(400);
    expect(res.body).toEqual({ error: message });
  });

  it('comment bodies are trimmed and limited to 10000 characters; a valid form for a missing build is 404', async () => {
    const tooLong = await post('post', '/api/v1/comments', { build_id: String(buildId), body: long(10_001) }).expect(400);
    expect(tooLong.body).toEqual({ error: 'body must be at most 10000 characters' });
    await post('post', '/api/v1/comments', { build_id: '999999', body: 'hi' }).expect(404);
    await post('post', '/api/v1/comments', { build_id: '99999999999999999999', body: 'hi' }).expect(404);
    const created = await post('post', '/api/v1/comments', { build_id: ` ${buildId} `, body: '  ok  ' }).expect(201);
    expect(created.body.body).toBe('ok');
  });

  it('profile and settings keep their meaning of empty and absent', async () => {
    await post('patch', '/api/v1/profile', { display_name: '  Ada  ' }).expect(200);
    const comment = await post('post', '/api/v1/comments', { build_id: String(buildId), body: 'signed' }).expect(201);
    expect(comment.body.author).toBe('Ada');
    const nothing = await post('patch', '/api/v1/settings', { unrelated: 'x' }).expect(400);
    expect(nothing.body).toEqual({ error: 'Nothing to update: send team_name or logo' });
    await post('patch', '/api/v1/settings', { team_name: '  Team A  ' }).expect(200);
    expect((await ctx.members.as(admin, 'get', '/api/v1/settings').expect(200)).body.team_name).toBe('Team A');
  });

  it('invitation accept: token, then password, then display name, before the token is looked up', async () => {
    const accept = (fields: Record<string, string>) => {
      const req = ctx.relay.http().post('/api/v1/invitations/accept');
      for (const [name, value] of Object.entries(fields)) req.field(name, value);
      return req;
    };
    expect((await accept({ password: 'long enough' }).expect(400)).body).toEqual({ error: 'token is required' });
    expect((await accept({ token: 'unknown', password: 'short' }).expect(400)).body).toEqual({
      error: 'password must be at least 8 characters',
    });
    expect((await accept({ token: 'unknown', password: long(1025) }).expect(400)).body).toEqual({
      error: 'password must be at least 8 characters',
    });
    expect((await accept({ token: 'unknown', password: 'long enough', display_name: long(201) }).expect(400)).body).toEqual({
      error: 'display_name must be at most 200 characters',
    });
    await accept({ token: 'unknown', password: 'long enough', display_name: 'Ada' }).expect(410);
  });

  it('build upload fields: blank counts as omitted, the first bad field is named', async () => {
    const upload = (fields: Record<string, string>) => post('post', '/api/v1/builds', fields).attach('file', Buffer.from('PK'), 'x.apk');
    expect((await upload({ status: 'Shipped' }).expect(400)).body).toEqual({
      error: 'status must be one of Backlog, In Progress, Done, Rejected',
    });
    expect((await upload({ platform: 'web', label: long(201) }).expect(400)).body).toEqual({ error: 'platform must be ios or android' });
    expect((await upload({ status: ' ', label: long(201) }).expect(400)).body).toEqual({ error: 'label must be at most 200 characters' });
    expect((await upload({ app_id: '1e3' }).expect(400)).body).toEqual({ error: 'app_id must be a positive integer' });
    expect((await upload({ app_id: ' 99999999999 ' }).expect(404)).body).toEqual({ error: 'App not found' });
  });

  it('recording upload: sessionId longer than 200 characters is refused before the body is read', async () => {
    const res = await ctx.members.as(admin, 'post', `/api/v1/recordings/upload?sessionId=${long(201)}`).expect(400);
    expect(res.body).toEqual({ error: 'sessionId must be a string of at most 200 characters' });
    const twice = await ctx.members.as(admin, 'post', '/api/v1/recordings/upload?sessionId=a&sessionId=b').expect(400);
    expect(twice.body).toEqual({ error: 'sessionId must be a string of at most 200 characters' });
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { attachBuild } from '../support/build-fixtures';
import { MemberFactory, TestMember } from '../support/factory';
import { startTestRelay, TestRelay } from '../support/test-relay';

const WEBM = readFileSync(join(__dirname, '../fixtures/recordings/two-seconds.webm'));

/**
 * One rule for every id a client sends (path, query string, form field): a plain positive decimal
 * integer, else 400 (never a different row or a 500); a well-formed id past 2^31-1 (the id
 * columns' range) names no row, so it is answered like any missing id: 404 for a lookup, nothing
 * for a filter. Before the rule, PostgreSQL refused such ids as out of range: 500.
 */
describe('ids', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  let admin: TestMember;

  beforeAll(async () => {
    relay = await startTestRelay();
    members = new MemberFactory(relay);
    admin = await members.admin();
  });
  afterAll(() => relay.close());

  const routes: [method: 'get' | 'patch' | 'delete' | 'post', path: string, notFound: string][] = [
    ['get', '/api/v1/builds/:id', 'Build not found'],
    ['patch', '/api/v1/builds/:id', 'Build not found'],
    ['post', '/api/v1/builds/:id/schedule-deletion', 'Build not found'],
    ['delete', '/api/v1/builds/:id/schedule-deletion', 'Build not found'],
    ['get', '/api/v1/builds/:id/download', 'Build not found'],
    ['get', '/api/v1/builds/:id/history', 'Build not found'],
    ['delete', '/api/v1/tokens/:id', 'Token not found'],
    ['patch', '/api/v1/webhooks/:id', 'Webhook not found'],
    ['delete', '/api/v1/webhooks/:id', 'Webhook not found'],
    ['get', '/api/v1/webhooks/:id/deliveries', 'Webhook not found'],
    ['patch', '/api/v1/apps/:id', 'App not found'],
    ['delete', '/api/v1/apps/:id', 'App not found'],
    ['delete', '/api/v1/comments/:id', 'Comment not found'],
    ['patch', '/api/v1/team/members/:id', 'Member not found'],
    ['delete', '/api/v1/team/members/:id', 'Member not found'],
    ['post', '/api/v1/team/members/:id/send-reset', 'Member not found'],
  ];
  const malformed = ['1e3', '0x10', '1.0', '-1', '0', '01', '1%20', '%2B1', 'abc'];
  const pastRange = ['2147483648', '4294967297', '9007199254740993', '99999999999999999999', '1'.padEnd(400, '0')];

  it.each(routes)('%s %s answers 400 for a malformed id', async (method, path) => {
    for (const id of malformed) {
      const res = await members.as(admin, method, path.replace(':id', id)).send({});
      expect({ id, status: res.status, body: res.body }).toEqual({ id, status: 400, body: { error: 'id must be a positive integer' } });
    }
  });

  it.each(routes)('%s %s answers 404 for an id past 2^31-1 and for the largest id without a row', async (method, path, message) => {
    for (const id of [...pastRange, '2147483647']) {
      const res = await members.as(admin, method, path.replace(':id', id)).send({ name: 'x', role: 'QA', status_label: 'Done', enabled: false });
      expect({ id, status: res.status, body: res.body }).toEqual({ id, status: 404, body: { error: message } });
    }
  });

  it('query and form ids follow the same rule: comments build_id, builds app_id, recordings buildId, upload app_id', async () => {
    for (const id of pastRange) {
      const comments = await members.as(admin, 'get', `/api/v1/comments?build_id=${id}`);
      expect({ id, status: comments.status, body: comments.body }).toEqual({ id, status: 404, body: { error: 'Build not found' } });
      const posted = await members.as(admin, 'post', '/api/v1/comments').field('build_id', id).field('body', 'hello');
      expect({ id, status: posted.status, body: posted.body }).toEqual({ id, status: 404, body: { error: 'Build not found' } });
      const builds = await members.as(admin, 'get', `/api/v1/builds?app_id=${id}`);
      expect({ id, status: builds.status, items: builds.body.items, total: builds.body.total }).toEqual({ id, status: 200, items: [], total: 0 });
      const recordings = await members.as(admin, 'get', `/api/v1/recordings?buildId=${id}`);
      expect({ id, status: recordings.status, body: recordings.body }).toEqual({ id, status: 200, body: [] });
      const upload = await attachBuild(members.as(admin, 'post', '/api/v1/builds').field('app_id', id), 'string-label.apk');
      expect({ id, status: upload.status, body: upload.body }).toEqual({ id, status: 404, body: { error: 'App not found' } });
      const recording = await members.as(admin, 'post', `/api/v1/recordings/upload?buildId=${id}`).attach('video', WEBM, 'v.webm');
      expect({ id, status: recording.status, body: recording.body }).toEqual({ id, status: 400, body: { error: 'buildId must be at most 2147483647' } });
    }
    for (const id of ['01', '-1', '1.5', 'x']) {
      expect((await members.as(admin, 'get', `/api/v1/comments?build_id=${id}`)).body).toEqual({ error: 'build_id must be a positive integer' });
      expect((await members.as(admin, 'get', `/api/v1/builds?app_id=${id}`)).body).toEqual({ error: 'app_id must be a positive integer' });
      expect((await members.as(admin, 'get', `/api/v1/recordings?buildId=${id}`)).body).toEqual({ error: 'buildId must be a positive integer' });
    }
    // Nothing was stored on the way.
    expect((await members.as(admin, 'get', '/api/v1/builds')).body.total).toBe(0);
    expect((await members.as(admin, 'get', '/api/v1/recordings')).body).toEqual([]);
  });
});

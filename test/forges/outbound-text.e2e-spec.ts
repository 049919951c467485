import { ForgePullRequestRepository } from '../../src/forges/pull-requests/pull-request.repository';
import type { TestMember } from '../support/factory';
import { simulatorAppZip } from '../webhooks/support/app-zip';
import { until, useGitHubForgeRelay } from './support/forge-relay';
import { RecordedRequest, TestForge } from './support/forge-server';

/** No prefix a shape rule knows: only the configured value can find it. */
const TOKEN = 'Opaque7f3a9c1e5b2d8f4a6c0e';
const STATUS = 'repos/create-commit-status';

/** What a careless forge answers: the request's credential, whole and bare, in its error. */
const echo = (r: RecordedRequest) => {
  const header = String(r.headers.authorization);
  return { message: `Bad credentials: "${header}" (${header.split(' ')[1]}) is not allowed here` };
};

/**
 * Issue 36 items 7 and 8 (docs/robustness.md "Secrets in outbound errors and uploader text"): a
 * forge that echoes the credential in its error leaves it nowhere (the outbox row, the delivery
 * logs, the relay log, the test-status answer, the pull request's queue row), and what an uploader
 * wrote reaches the pull request comment with no live mention, link, image or HTML.
 */
describe('Outbound errors and uploader text on GitHub', () => {
  const forge = new TestForge('github', { token: TOKEN });
  const ctx = useGitHubForgeRelay(forge, TOKEN);

  let admin: TestMember;
  let pat: string;
  beforeAll(async () => {
    admin = await ctx.members.admin();
    pat = await ctx.members.pat(await ctx.members.member('Developer'), 'builds:write');
  });
  const relayLog = () => ctx.relay.logger.buffer.tail(500).join('\n');

  it('keeps an echoed token out of last_error, both delivery logs and the relay log, on a retried 5xx and a final 4xx', async () => {
    const sha = '6'.repeat(40);
    forge.script(STATUS, { status: 502, body: echo, forPath: sha }, { status: 422, body: echo, forPath: sha });
    await ctx.members
      .withPat(pat, 'post', '/api/v1/builds')
      .field('commit', sha)
      .field('repository', 'acme/app')
      .attach('file', simulatorAppZip({ name: 'Plain', bundleId: 'com.example.plain', version: '1.0', build: '1' }), 'Plain.app.zip')
      .expect(201);
    const deliveryOf = async () => {
      const { body } = await ctx.members.as(admin, 'get', '/api/v1/forges/deliveries').expect(200);
      return (body.deliveries as { commit: string; status: string; last_error: string | null; attempts: { error: string }[] }[]).find((d) => d.commit === sha);
    };
    // The retry's time is set from the relay's clock when the answer is back: move the clock only after that.
    await until('the 5xx attempt kept', async () => (await deliveryOf())?.last_error);
    ctx.relay.clock.advance(15_000);
    const delivery = await until('the status given up', async () => {
      const found = await deliveryOf();
      return found?.status === 'failed' ? found : null;
    });
    expect(delivery.attempts.map((a) => a.error)).toEqual([
      'HTTP 502: Bad credentials: "token ***" (***) is not allowed here',
      'HTTP 422: Bad credentials: "token ***" (***) is not allowed here',
    ]);
    expect(delivery.last_error).toBe('HTTP 422: Bad credentials: "token ***" (***) is not allowed here');
    const forgeLog = await ctx.members.as(admin, 'get', '/api/v1/forges/config/0/deliveries').expect(200);
    expect(JSON.stringify(forgeLog.body)).toContain('(***) is not allowed');
    expect(JSON.stringify(forgeLog.body)).not.toContain(TOKEN);
    expect(relayLog()).toContain('not delivered: HTTP 422: Bad credentials: \\"token ***\\" (***)');
    expect(relayLog()).not.toContain(TOKEN);
  });

  it('keeps it out of a test status answer and of a pull request comment that could not be written', async () => {
    forge.script(STATUS, { status: 401, body: echo, forPath: '7'.repeat(40) });
    const test = await ctx.members.as(admin, 'post', '/api/v1/forges/config/0/test').send({ repository: 'acme/app', commit: '7'.repeat(40) }).expect(200);
    expect(test.body.error).toBe('HTTP 401: Bad credentials: "token ***" (***) is not allowed here');

    forge.script('issues/create-comment', { status: 403, body: echo });
    await ctx.members
      .withPat(pat, 'post', '/api/v1/builds')
      .field('commit', '8'.repeat(40))
      .field('repository', 'acme/app')
      .field('pull_request', '31')
      .attach('file', simulatorAppZip({ name: 'Plain', bundleId: 'com.example.plain', version: '1.0', build: '2' }), 'Plain.app.zip')
      .expect(201);
    const row = await until('the comment given up', async () => {
      const found = await ctx.relay.app.get(ForgePullRequestRepository).find('acme/app', 31);
      return found?.status === 'failed' ? found : null;
    });
    expect(row.lastError).toBe('HTTP 403: Bad credentials: "token ***" (***) is not allowed here');
    expect(relayLog()).toContain('Pull request comment acme/app#31 not written: HTTP 403');
    expect(relayLog()).not.toContain(TOKEN);
  });

  it('posts uploader text inert: mentions broken, the changelog a code block whose links, images and HTML do nothing', async () => {
    const changelog = '@org/team approve now [click](http://x.invalid) ![t](http://x.invalid/p.png)\n<img src="http://x.invalid/i.png">\n```\n@here';
    const { body: build } = await ctx.members
      .withPat(pat, 'post', '/api/v1/builds')
      .field('commit', '9'.repeat(40))
      .field('repository', 'acme/app')
      .field('pull_request', '32')
      .field('branch', 'feature/@ops-oncall')
      .field('changelog', changelog)
      .attach('file', simulatorAppZip({ name: 'Pay @acme-qa', bundleId: 'com.example.pay', version: '2.0@rel', build: '5@x' }), 'Pay.app.zip')
      .expect(201);
    const posted = await until('the comment', () =>
      forge.of('issues/create-comment').map((r) => (r.body as { body: string }).body).find((b) => b.includes(`#${build.id})`)),
    );
    // Every @ followed by a name carries a zero-width space: no forge reads a mention there.
    expect(posted).not.toMatch(/@[\w-]/);
    expect(posted).toContain('| Pay @\u200Bacme-qa | ios | 2.0@\u200Brel (5@\u200Bx) |');
    // The changelog is a fenced block, its fence longer than any backtick run inside: nothing in it renders.
    expect(posted).toContain(
      '\n````\n@\u200Borg/team approve now [click](http://x.invalid) ![t](http://x.invalid/p.png)\n<img src="http://x.invalid/i.png">\n```\n@\u200Bhere\n````\n',
    );
    // Outside the block, nothing of it: no link or image syntax, no tag.
    const outside = posted.replace(/\n````\n[\s\S]*?\n````\n/, '\n');
    expect(outside).not.toContain('x.invalid');
    expect(forge.problems()).toEqual([]);
  });
});

/**
 * Testers (issue 39 item 1, docs/integrations.md "Testers"): a person without an account added to
 * an app gets an e-mail through the outbox (a real SMTP server on loopback) when a build lands,
 * with a share link of their own; the install page opens at 375 px in Chromium and downloads; the
 * "latest build" link follows the next upload; removing a tester ends their links; one click
 * unsubscribes; a refusal by the mail server is shown to Admins only.
 */
import { readFileSync } from 'node:fs';
import { attachBuild, fixture } from '../support/build-fixtures';
import { browserSkipReason, launchChromium, newContext } from '../support/browser';
import { MemberFactory, type TestMember } from '../support/factory';
import { itUnless } from '../support/describe-unless';
import { SmtpSink, type ReceivedMail } from '../support/smtp-sink';
import { startTestRelay, type TestRelay } from '../support/test-relay';

jest.setTimeout(180_000);

const PUBLIC = 'https://relay.example.com';
/** The relay-root path of a link in a mail (the mail carries the public URL; the test opens it on loopback). */
const pathIn = (mail: ReceivedMail, prefix: string): string => {
  const match = new RegExp(`${PUBLIC.replace(/\./g, '\\.')}(${prefix}/[0-9a-f]{64})`).exec(mail.raw);
  if (!match) throw new Error(`no ${prefix} link in:\n${mail.raw}`);
  return match[1];
};

async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await probe();
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('testers of an app', () => {
  const smtp = new SmtpSink();
  let relay: TestRelay;
  let members: MemberFactory;
  let admin: TestMember;
  let developer: TestMember;
  let viewer: TestMember;
  let appId: number;

  const upload = async (branch?: string): Promise<number> => {
    const req = attachBuild(members.as(developer, 'post', '/api/v1/builds'), 'string-label.apk');
    if (branch) req.field('branch', branch);
    const res = await req.expect(201);
    appId = res.body.app_id;
    return res.body.id;
  };
  const mailsTo = (address: string) => smtp.messages.filter((m) => m.to.includes(address));

  beforeAll(async () => {
    await smtp.start();
    relay = await startTestRelay({ ...smtp.env(), SVC_RELAY_URL: PUBLIC });
    members = new MemberFactory(relay);
    admin = await members.admin();
    developer = await members.member('Developer');
    viewer = await members.member('Viewer');
    await upload();
  });
  afterAll(async () => {
    await relay?.close();
    await smtp.close();
  });

  it('a tester without an account gets the new build by e-mail with a link of their own, which opens the install page and downloads', async () => {
    await members.as(viewer, 'post', `/api/v1/apps/${appId}/testers`).send({ email: 'ann@example.com' }).expect(403);
    const added = await members.as(developer, 'post', `/api/v1/apps/${appId}/testers`).send({ email: 'Ann@Example.com', name: 'Ann' }).expect(201);
    expect(added.body).toEqual(expect.objectContaining({ email: 'ann@example.com', name: 'Ann', branches: null, only_done: false, unsubscribed_at: null }));
    await members.as(developer, 'post', `/api/v1/apps/${appId}/testers`).send({ email: 'ann@example.com' }).expect(409);

    const buildId = await upload();
    const mail = await smtp.lastTo('ann@example.com', 30_000);
    // (The app's name is not ASCII: the subject is MIME-encoded.)
    expect(mail.subject).toMatch(/New.build.to.test:/);
    expect(mail.raw).toMatch(/List-Unsubscribe:\s*<https:\/\/relay\.example\.com\/unsubscribe\/[0-9a-f]{64}>/);
    const install = pathIn(mail, '/install');
    const page = await relay.http().get(install).expect(200);
    expect(page.text).toContain(`/api/v1/share/${install.split('/').pop()}/download`);
    const file = await relay.http().get(`/api/v1/share/${install.split('/').pop()}/download`).buffer(true).parse((res, cb) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => cb(null, Buffer.concat(chunks)));
    });
    expect(file.status).toBe(200);
    expect(Buffer.compare(file.body as Buffer, readFileSync(fixture('string-label.apk')))).toBe(0);

    // The link is the tester's own: it is among the build's share links, made for them.
    const links = await members.as(developer, 'get', `/api/v1/builds/${buildId}/share-links`).expect(200);
    expect(links.body).toHaveLength(1);

    // The outbox shows the mail destination to Admins, with nothing failed.
    await members.as(developer, 'get', '/api/v1/outbox/destinations').expect(403);
    // The sink answers before the outbox records the delivery, so the count is waited for.
    const destinations = await until('the delivery recorded', async () => {
      const res = await members.as(admin, 'get', '/api/v1/outbox/destinations').expect(200);
      return res.body[0]?.queued === 0 ? res : null;
    });
    expect(destinations.body).toEqual([expect.objectContaining({ destination: 'mail', kind: 'mail', delivered: 1, failed: 0, queued: 0, last_error: null })]);
  });

  itUnless(browserSkipReason(), 'the e-mailed link opens at 375 px without horizontal scrolling and downloads the APK', async () => {
    const install = pathIn(await smtp.lastTo('ann@example.com'), '/install');
    const browser = await launchChromium();
    try {
      const phone = await newContext(browser, { viewport: { width: 375, height: 812 }, isMobile: true, hasTouch: true, acceptDownloads: true });
      const page = await phone.newPage();
      await page.goto(`${relay.url}${install}`);
      await page.getByRole('heading', { level: 1 }).waitFor();
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: /^Download the APK/ }).click()]);
      expect(Buffer.compare(readFileSync((await download.path())!), readFileSync(fixture('string-label.apk')))).toBe(0);
    } finally {
      await browser.close();
    }
  });

  it('a "latest build" link follows the next upload, per branch, and ends when revoked', async () => {
    await members.as(viewer, 'post', `/api/v1/apps/${appId}/latest-links`).send({}).expect(403);
    const any = (await members.as(developer, 'post', `/api/v1/apps/${appId}/latest-links`).send({}).expect(201)).body;
    const main = (await members.as(developer, 'post', `/api/v1/apps/${appId}/latest-links`).send({ branch: 'main' }).expect(201)).body;
    expect(any.url).toBe(`${PUBLIC}${any.path}`);
    expect(any.path).toMatch(/^\/install\/latest\/[0-9a-f]{64}$/);
    await relay.http().get(main.path).expect(404);

    const first = await upload('main');
    expect((await relay.http().get(any.path).expect(200)).text).toContain(`download?build=${first}`);
    expect((await relay.http().get(main.path).expect(200)).text).toContain(`download?build=${first}`);
    const second = await upload('feature/x');
    expect((await relay.http().get(any.path).expect(200)).text).toContain(`download?build=${second}`);
    expect((await relay.http().get(main.path).expect(200)).text).toContain(`download?build=${first}`);
    const download = await relay.http().get(`${main.path}/download?build=${second}`).expect(200);
    // A build the link would not show is not served: the newest of its branch is.
    expect(download.headers['content-disposition']).toBeDefined();

    const listed = await members.as(viewer, 'get', `/api/v1/apps/${appId}/latest-links`).expect(200);
    expect(listed.body.map((l: { id: number }) => l.id).sort()).toEqual([any.id, main.id].sort());
    await members.as(developer, 'delete', `/api/v1/apps/${appId}/latest-links/${any.id}`).expect(204);
    await relay.http().get(any.path).expect(410);
  });

  it('branches and Done: a tester hears only of the builds they chose', async () => {
    await members.as(developer, 'post', `/api/v1/apps/${appId}/testers`).send({ email: 'mainonly@example.com', branches: ['main'] }).expect(201);
    await members.as(developer, 'post', `/api/v1/apps/${appId}/testers`).send({ email: 'done@example.com', only_done: true }).expect(201);
    await upload('feature/y');
    const mainBuild = await upload('main');
    await smtp.lastTo('mainonly@example.com', 30_000);
    expect(mailsTo('mainonly@example.com')).toHaveLength(1);
    expect(mailsTo('done@example.com')).toHaveLength(0);
    await members.as(developer, 'patch', `/api/v1/builds/${mainBuild}`).send({ status_label: 'Done' }).expect(200);
    await smtp.lastTo('done@example.com', 30_000);
    expect(mailsTo('done@example.com')).toHaveLength(1);
  });

  it('one click unsubscribes; removing a tester revokes every link they were sent', async () => {
    const mail = await smtp.lastTo('ann@example.com');
    const unsubscribe = pathIn(mail, '/unsubscribe');
    // RFC 8058 one-click: the mail client POSTs.
    const done = await relay.http().post(unsubscribe).type('form').send('List-Unsubscribe=One-Click').expect(200);
    expect(done.text).toContain('ann@example.com will get no more e-mails');
    const ann = (await members.as(admin, 'get', `/api/v1/apps/${appId}/testers`).expect(200)).body.find((t: { email: string }) => t.email === 'ann@example.com');
    expect(ann.unsubscribed_at).not.toBeNull();
    const before = mailsTo('ann@example.com').length;
    await upload();
    await smtp.lastTo('mainonly@example.com').catch(() => null);
    // A tester who hears of every build gets the next one; Ann does not.
    await members.as(developer, 'post', `/api/v1/apps/${appId}/testers`).send({ email: 'bob@example.com' }).expect(201);
    await upload();
    await smtp.lastTo('bob@example.com', 30_000);
    expect(mailsTo('ann@example.com')).toHaveLength(before);

    const install = pathIn(mail, '/install');
    await relay.http().get(install).expect(200);
    await members.as(viewer, 'delete', `/api/v1/apps/${appId}/testers/${ann.id}`).expect(403);
    await members.as(developer, 'delete', `/api/v1/apps/${appId}/testers/${ann.id}`).expect(204);
    await relay.http().get(install).expect(410);
    await members.as(developer, 'delete', `/api/v1/apps/${appId}/testers/${ann.id}`).expect(404);
  });
});

describe('a notice the mail server refuses', () => {
  it('is kept as the tester\'s refusal, shown to Admins only, and as the mail destination\'s last error', async () => {
    const smtp = await new SmtpSink({ rejectRecipients: true }).start();
    const relay = await startTestRelay({ ...smtp.env(), SVC_RELAY_URL: PUBLIC });
    try {
      const members = new MemberFactory(relay);
      const admin = await members.admin();
      const developer = await members.member('Developer');
      const first = await attachBuild(members.as(developer, 'post', '/api/v1/builds'), 'string-label.apk').expect(201);
      const appId = first.body.app_id;
      await members.as(developer, 'post', `/api/v1/apps/${appId}/testers`).send({ email: 'gone@example.com' }).expect(201);
      await attachBuild(members.as(developer, 'post', '/api/v1/builds'), 'string-label.apk').expect(201);
      const refused = await until('the refusal', async () => {
        const list = (await members.as(admin, 'get', `/api/v1/apps/${appId}/testers`).expect(200)).body;
        return list[0].last_refusal ? list[0] : null;
      });
      expect(refused.last_refusal).toMatch(/^SMTP 550: /);
      expect(refused.refused_at).not.toBeNull();
      const forDeveloper = (await members.as(developer, 'get', `/api/v1/apps/${appId}/testers`).expect(200)).body[0];
      expect(forDeveloper).toEqual(expect.objectContaining({ last_refusal: null, refused_at: null }));
      const destinations = (await members.as(admin, 'get', '/api/v1/outbox/destinations').expect(200)).body;
      expect(destinations).toEqual([expect.objectContaining({ destination: 'mail', failed: 1, delivered: 0, last_error: expect.stringMatching(/^SMTP 550: /) })]);
    } finally {
      await relay.close();
      await smtp.close();
    }
  });
});

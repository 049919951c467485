/**
 * A Teams webhook added in the dashboard (issue 39 item 2, docs/integrations.md "Slack and Microsoft
 * Teams"): its URL is sealed at rest and held to the rule of webhooks registered through the API,
 * so the fake Teams sits on the run's test LAN (test/support/test-lan.ts) behind a forwarder, as
 * the dashboard forges' test puts its forge; a new build's Adaptive Card reaches it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { DataSource } from 'typeorm';
import { attachBuild } from '../support/build-fixtures';
import { describeUnless } from '../support/describe-unless';
import { lanHostAddress, leaseLanAddress, onLan, testLanSkipReason } from '../support/test-lan';
import { useTestRelay } from '../support/use-relay';
import { until } from '../forges/support/forge-relay';
import { FakeSlack } from './support/fake-slack';

const SIGNATURE = 'dashboard-teams-signature-77';

describeUnless(testLanSkipReason(), 'Teams webhooks added in the dashboard', () => {
  const teams = new FakeSlack('unused');
  let lanUrl = '';
  let forwarder: ChildProcess | null = null;
  let release = () => {};
  beforeAll(async () => {
    await teams.start(0, lanHostAddress());
    const lease = leaseLanAddress();
    release = lease.release;
    forwarder = spawn('ip', onLan(process.execPath, join(__dirname, '..', 'forges', 'support', 'tcp-forwarder.js'), lease.address, lanHostAddress(), new URL(teams.url).port), {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const port = await new Promise<number>((resolve) => createInterface({ input: forwarder!.stdout! }).once('line', (line) => resolve(JSON.parse(line).port)));
    lanUrl = `http://${lease.address}:${port}`;
  });
  afterAll(async () => {
    if (forwarder && forwarder.exitCode === null) {
      const exited = new Promise((resolve) => forwarder!.once('exit', resolve));
      forwarder.kill('SIGKILL');
      await exited;
    }
    release();
    await teams.close();
  });
  const ctx = useTestRelay({ SVC_SECRETS_KEY: Buffer.alloc(32, 9).toString('base64'), SVC_RELAY_URL: 'https://relay.example.test' });

  it('seals the URL, never shows it, and posts the card of a new build through it', async () => {
    const admin = await ctx.members.member('Admin');
    const url = `${lanUrl}/teams/lan?sig=${SIGNATURE}`;
    const { body: route } = await ctx.members.as(admin, 'post', '/api/v1/integrations/chat/routes').send({ kind: 'teams', name: 'lan', url, apps: ['*'] }).expect(201);
    expect(route).toEqual({ id: expect.any(Number), origin: 'dashboard', kind: 'teams', channel: null, name: 'lan', apps: null, branches: null, problem: null });
    const listed = await ctx.members.as(admin, 'get', '/api/v1/integrations/chat').expect(200);
    expect(JSON.stringify(listed.body)).not.toContain(SIGNATURE);
    const [stored] = (await ctx.relay.app.get(DataSource).query('select url_sealed from chat_routes')) as { url_sealed: string }[];
    expect(stored.url_sealed).not.toContain(SIGNATURE);

    const dev = await ctx.members.member('Developer');
    const { body: build } = await attachBuild(ctx.members.as(dev, 'post', '/api/v1/builds'), 'string-label.apk', { branch: 'main' }).expect(201);
    const card = await until('the card on the LAN', () => teams.teams[0], 30_000);
    expect(card).toMatchObject({ name: 'lan', query: `?sig=${SIGNATURE}` });
    expect(JSON.stringify(card.body)).toContain(`https://relay.example.test/builds/${build.id}`);
    expect(teams.problems()).toEqual([]);
    // The fake answers before the outbox records the delivery, so the count is waited for.
    const destination = await until('the delivery recorded', async () => {
      const [row] = (await ctx.members.as(admin, 'get', '/api/v1/outbox/destinations').expect(200)).body;
      return row?.delivered || row?.failed ? row : null;
    });
    expect(destination).toMatchObject({ destination: 'teams:lan', delivered: 1, failed: 0 });
  });
});

import { writeFileSync } from 'node:fs';
import { ReleaseGateRepository } from '../../src/release-gate/release-gate.repository';
import { clusterTestEnv, ClusterTestEnv } from '../scale/cluster-env';
import { forgeConfigPath, until } from '../forges/support/forge-relay';
import { TestForge } from '../forges/support/forge-server';
import { attachBuild } from '../support/build-fixtures';
import { describeUnless } from '../support/describe-unless';
import { MemberFactory, TestMember } from '../support/factory';
import { PG_ADMIN_URL, REDIS_URL, unreachable, withPgAdmin } from '../support/reachable';
import { startTestRelay, TestRelay } from '../support/test-relay';

const TOKEN = 'ghp_gate_cluster_token';
const STATUS = 'repos/create-commit-status';
const GATE = 'svc/release-gate';
const SHA = 'e'.repeat(40);

/**
 * Issue 38: one build's gate evaluated by two relay instances at once, on one PostgreSQL database
 * (and one Redis). Instance A is held in the middle of an evaluation that read one approval; the
 * second approval arrives through B meanwhile. The build's database lock makes B's evaluation wait
 * for A's, so the state stored, the list's filter and the last `svc/release-gate` at the forge are
 * B's (passed), never A's stale one (without the lock A's "failed" landed after B's "passed").
 */
describeUnless(unreachable([PG_ADMIN_URL, REDIS_URL]), 'release gate across two relay instances (PostgreSQL + Redis)', () => {
  const forge = new TestForge('github', { token: TOKEN });
  let cluster: ClusterTestEnv;
  let a: TestRelay;
  let b: TestRelay;
  let members: MemberFactory;
  let admin: TestMember;
  let qa1: TestMember;
  let qa2: TestMember;

  beforeAll(async () => {
    await forge.start();
    cluster = await clusterTestEnv();
    const config = forgeConfigPath();
    writeFileSync(
      config,
      JSON.stringify({
        forges: [{ type: 'github', url: forge.url, tokenEnv: 'GH_GATE_CLUSTER_TOKEN', repositories: ['acme/app'] }],
        releaseGate: { default: { approvals: { QA: 2 } } },
      }),
    );
    const env = { ...cluster.env, SVC_CONFIG: config, GH_GATE_CLUSTER_TOKEN: TOKEN };
    // One after the other: the first runs the migrations.
    a = await startTestRelay(env);
    b = await startTestRelay(env);
    members = new MemberFactory(a);
    admin = await members.admin();
    qa1 = await members.member('QA');
    qa2 = await members.member('QA');
  }, 300_000);

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await cluster?.dispose();
    await forge.close();
  });

  /** Sessions of the test cluster's database waiting for an advisory lock. */
  const advisoryWaits = async () => {
    let waiting = 0;
    await withPgAdmin(async (client) => {
      const { rows } = await client.query("SELECT count(*)::int AS n FROM pg_locks l JOIN pg_database d ON d.oid = l.database WHERE l.locktype = 'advisory' AND NOT l.granted AND d.datname = current_database()");
      waiting = rows[0].n;
    }, cluster.env.SVC_DATABASE_URL);
    return waiting;
  };
  const lastGate = () => forge.of(STATUS).filter((r) => r.path.endsWith(`/statuses/${SHA}`) && (r.body as { context: string }).context === GATE).at(-1)?.body as { state: string; description: string } | undefined;
  const review = (relay: TestRelay, member: TestMember, id: number) => relay.http().post(`/api/v1/builds/${id}/reviews`).set('Cookie', member.cookie).send({ verdict: 'approve' });

  it('never stores or posts a stale state last', async () => {
    const id = (await attachBuild(members.as(admin, 'post', '/api/v1/builds'), 'string-label.apk', { repository: 'acme/app', commit: SHA }).expect(201)).body.id as number;
    await until('red at first', () => lastGate()?.state === 'failure');

    // A's next evaluation of the build stops right after reading the reviews, until released.
    const repository = a.app.get(ReleaseGateRepository);
    const read = repository.reviewsOf.bind(repository);
    let reached!: () => void;
    const atHold = new Promise<void>((resolve) => (reached = resolve));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let armed = true;
    const spy = jest.spyOn(repository, 'reviewsOf').mockImplementation(async (buildId, manager) => {
      const rows = await read(buildId, manager);
      // The evaluation's read (no transaction of its own), not the review's own write; once.
      if (armed && manager === undefined && buildId === id) {
        armed = false;
        reached();
        await held;
      }
      return rows;
    });
    try {
      const first = review(a, qa1, id).then((res) => res);
      await atHold;
      let answered = false;
      const second = review(b, qa2, id).then((res) => ((answered = true), res));
      // The second approval is committed and B's evaluation of it is either done (no lock: A's
      // stale state would then land last) or waiting for the build's lock held by A…
      await until('the second review stored', async () => {
        const { body } = await b.http().get(`/api/v1/builds/${id}/reviews`).set('Cookie', qa1.cookie).expect(200);
        return body.reviews.length === 2 ? true : null;
      });
      await until('B evaluated or waiting for the lock', async () => answered || (await advisoryWaits()) > 0);
      // …and only then does A go on with its one approval.
      release();
      expect((await first).status).toBe(201);
      expect((await second).status).toBe(201);
    } finally {
      release();
      spy.mockRestore();
    }

    // Read as stored (GET /gate would evaluate it again): the list's filter on either instance, and the forge.
    for (const relay of [a, b]) {
      const listed = (await relay.http().get('/api/v1/builds?gate=passed').set('Cookie', qa1.cookie).expect(200)).body;
      expect(listed.items.map((i: { id: number }) => i.id)).toEqual([id]);
    }
    await until('green at the forge', () => lastGate()?.state === 'success');
    // Everything queued has gone out: the last status the forge got is still green.
    await until('outbox drained', async () => {
      const before = forge.of(STATUS).length;
      await new Promise((r) => setTimeout(r, 500));
      return forge.of(STATUS).length === before ? true : null;
    });
    expect(lastGate()).toEqual(expect.objectContaining({ state: 'success', description: 'Release gate passed: 2 of 2 rules met' }));
    expect((await b.http().get(`/api/v1/builds/${id}/gate`).set('Cookie', qa1.cookie).expect(200)).body.state).toBe('passed');
    expect(forge.problems()).toEqual([]);
  }, 120_000);
});

import { writeFileSync } from 'node:fs';
import { ForgeOutboxRepository } from '../../src/forges/outbox/forge-outbox.repository';
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
const SHA2 = 'f'.repeat(40);

/** A point where an instance waits: `reached` when it gets there, `held` until `release`. */
function holdPoint() {
  let reached!: () => void;
  const atHold = new Promise<void>((resolve) => (reached = resolve));
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  return { reached, atHold, release, held };
}

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
  const lastGate = (sha = SHA) => forge.of(STATUS).filter((r) => r.path.endsWith(`/statuses/${sha}`) && (r.body as { context: string }).context === GATE).at(-1)?.body as { state: string; description: string } | undefined;
  const drained = () =>
    until('outbox drained', async () => {
      const before = forge.of(STATUS).length;
      await new Promise((r) => setTimeout(r, 500));
      return forge.of(STATUS).length === before ? true : null;
    });
  const review = (relay: TestRelay, member: TestMember, id: number) => relay.http().post(`/api/v1/builds/${id}/reviews`).set('Cookie', member.cookie).send({ verdict: 'approve' });

  it('never stores or posts a stale state last', async () => {
    const id = (await attachBuild(members.as(admin, 'post', '/api/v1/builds'), 'string-label.apk', { repository: 'acme/app', commit: SHA }).expect(201)).body.id as number;
    await until('red at first', () => lastGate()?.state === 'failure');

    // A's next evaluation of the build stops right after reading the reviews, until released.
    const repository = a.app.get(ReleaseGateRepository);
    const read = repository.reviewsOf.bind(repository);
    const { reached, atHold, release, held } = holdPoint();
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
    await drained();
    expect(lastGate()).toEqual(expect.objectContaining({ state: 'success', description: 'Release gate passed: 2 of 2 rules met' }));
    expect((await b.http().get(`/api/v1/builds/${id}/gate`).set('Cookie', qa1.cookie).expect(200)).body.state).toBe('passed');
    expect(forge.problems()).toEqual([]);
  }, 120_000);

  /**
   * The forge feed of A (a comment on the build asks it for the commit's statuses again) read the
   * gate as decided with one approval and is held before queueing; meanwhile B decides the second
   * approval and queues green. A's red, made from the older gate, is refused at the outbox (without
   * the gates' versions it was queued after the green and sent last).
   */
  it('never queues a status made from an older gate after a newer one', async () => {
    const id = (await attachBuild(members.as(admin, 'post', '/api/v1/builds'), 'literal-label.apk', { repository: 'acme/app', commit: SHA2 }).expect(201)).body.id as number;
    await until('red at first', () => lastGate(SHA2)?.state === 'failure');
    expect((await review(a, qa1, id)).status).toBe(201);
    await until('1 of 2 at the forge', () => (lastGate(SHA2)?.description.includes('1 of 2') ? true : null));

    const outbox = a.app.get(ForgeOutboxRepository);
    const enqueue = outbox.enqueue.bind(outbox);
    const { reached, atHold, release, held } = holdPoint();
    let armed = true;
    let queuedByA: number | null = null;
    const spy = jest.spyOn(outbox, 'enqueue').mockImplementation(async (statuses, move, now) => {
      if (armed && statuses.some((s) => s.commit === SHA2 && s.status.context === GATE)) {
        armed = false;
        reached();
        await held;
        queuedByA = await enqueue(statuses, move, now);
        return queuedByA;
      }
      return enqueue(statuses, move, now);
    });
    try {
      await members.as(qa1, 'post', '/api/v1/comments').field('build_id', String(id)).field('body', 'Looks fine on a Pixel').expect(201);
      await atHold;
      expect((await review(b, qa2, id)).status).toBe(201);
      await until('green at the forge', () => lastGate(SHA2)?.state === 'success');
      release();
      await until('A queued', () => queuedByA !== null);
    } finally {
      release();
      spy.mockRestore();
    }
    await drained();
    expect(lastGate(SHA2)).toEqual(expect.objectContaining({ state: 'success', description: 'Release gate passed: 2 of 2 rules met' }));
    expect(forge.problems()).toEqual([]);
  }, 120_000);
});

import Redis from 'ioredis';
import { randomBytes } from 'node:crypto';
import { MemberFactory, type TestMember } from '../support/factory';
import { PG_ADMIN_URL, REDIS_URL, withPgAdmin } from '../support/reachable';
import { startTestRelay, type TestRelay } from '../support/test-relay';

/** What every instance of one test cluster is started with, and how to remove what the run left behind. */
export interface ClusterTestEnv {
  /** SVC_DATABASE_URL, SVC_REDIS_URL, SVC_REDIS_PREFIX and SVC_CLUSTER_SECRET, as an operator sets them on each instance. */
  env: Record<string, string>;
  prefix: string;
  secret: string;
  /** Deletes this run's Redis keys (the shared directory's hashes outlive the instances, by design) and drops the database. */
  dispose: () => Promise<void>;
}

/** A fresh PostgreSQL database, a fresh Redis key prefix and a fresh cluster secret. */
export async function clusterTestEnv(): Promise<ClusterTestEnv> {
  const name = `svc_scale_${randomBytes(6).toString('hex')}`;
  await withPgAdmin((c) => c.query(`CREATE DATABASE ${name}`));
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  const prefix = `test-${randomBytes(4).toString('hex')}:`;
  const secret = randomBytes(32).toString('base64url');
  return {
    env: { SVC_DATABASE_URL: url.toString(), SVC_REDIS_URL: REDIS_URL, SVC_REDIS_PREFIX: prefix, SVC_CLUSTER_SECRET: secret },
    prefix,
    secret,
    dispose: async () => {
      const redis = new Redis(REDIS_URL);
      try {
        const keys = await redis.keys(`${prefix}*`);
        if (keys.length) await redis.del(...keys);
      } finally {
        redis.disconnect();
      }
      await withPgAdmin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

/** Two relay instances of one fresh test cluster, started before the suite's tests (A first: it runs the migrations). */
export interface TwoInstances {
  cluster: ClusterTestEnv;
  a: TestRelay;
  b: TestRelay;
  onA: MemberFactory;
  onB: MemberFactory;
  admin: TestMember;
}

/** Registers the suite's beforeAll (cluster, A, B, the first Admin through A) and afterAll; read the fields in tests. */
export function useTwoInstances(): TwoInstances {
  const ctx = {} as TwoInstances;
  beforeAll(async () => {
    ctx.cluster = await clusterTestEnv();
    // One after the other: the first runs the migrations.
    ctx.a = await startTestRelay(ctx.cluster.env);
    ctx.b = await startTestRelay(ctx.cluster.env);
    ctx.onA = new MemberFactory(ctx.a);
    ctx.onB = new MemberFactory(ctx.b);
    ctx.admin = await ctx.onA.admin();
  });
  afterAll(async () => {
    await ctx.a?.close();
    await ctx.b?.close();
    await ctx.cluster?.dispose();
  });
  return ctx;
}

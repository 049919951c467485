/**
 * The list's floor (bench/baselines/list-query.ts) does the relay's work for every variant the
 * benchmarks measure (bench/support/list-bench.ts listVariants): on the same rows, the floor and the
 * real relay list the same builds in the same order, with the same total, and write the same body.
 * A floor that drifted (a statement, a filter or a field the relay gained) would measure a relay
 * against less work; this catches it in CI, on SQLite and (npm run test:postgres) on PostgreSQL.
 */
import type { AddressInfo, Server } from 'node:net';
import { join } from 'node:path';
import { postgresListDatabase } from '../../bench/baselines/list-server-pg';
import { sqliteListDatabase } from '../../bench/baselines/list-server';
import { serveList } from '../../bench/baselines/list-query';
import { fetchAnswers, listedIds, listVariants, type Variant } from '../../bench/support/list-bench';
import { listCorpus, postgresSeedDatabase, seedMillion, sqliteSeedDatabase } from '../../bench/support/million-seed';
import { MemberFactory } from '../support/factory';
import { startTestRelay, testDialect, type TestRelay } from '../support/test-relay';

/** Past the relay's deep-page offset (2,000), so the deep pages read from either end and by day. */
const BUILDS = 5_000;

describe(`the list's floor against the relay (${testDialect}, ${BUILDS} builds)`, () => {
  let relay: TestRelay;
  let floor: Server;
  let closeFloor: () => unknown;
  let pat: string;
  let list: Variant[];

  beforeAll(async () => {
    // The seeded rows have no files: the builds folder's sweep would delete them.
    relay = await startTestRelay({ SVC_BUILD_FILE_SWEEP: 'false' });
    const factory = new MemberFactory(relay);
    pat = await factory.pat(await factory.admin(), 'builds:write');
    const url = relay.env.SVC_DATABASE_URL;
    const file = join(relay.dataDir, 'svc.sqlite');
    const seed = testDialect === 'postgres' ? await postgresSeedDatabase(url) : sqliteSeedDatabase(file);
    await seedMillion(seed, BUILDS, () => undefined);
    list = listVariants(await listCorpus(seed, BUILDS));
    await seed.close();
    const db = testDialect === 'postgres' ? postgresListDatabase(url) : sqliteListDatabase(file);
    closeFloor = db.close;
    floor = await serveList(db, 0);
  }, 120_000);

  afterAll(async () => {
    await new Promise((resolve) => floor?.close(resolve));
    await closeFloor?.();
    await relay?.close();
  });

  it('lists the same builds in the same order, with the same total and body, for every variant', async () => {
    const pairs = await fetchAnswers(relay.port, (floor.address() as AddressInfo).port, list, { Authorization: `Bearer ${pat}` });
    const side = (which: 'relay' | 'floor') => pairs.map((pair) => ({ name: pair.name, status: pair[which].status, ...listedIds(pair[which].body) }));
    expect(side('floor')).toEqual(side('relay'));
    expect(pairs.filter((pair) => pair.floor.body !== pair.relay.body).map((pair) => pair.name)).toEqual([]);
    // Not an agreement on nothing: every variant answers 200, and all but the page past the end list builds.
    expect(pairs.every((pair) => pair.relay.status === 200)).toBe(true);
    expect(pairs.filter((pair) => !listedIds(pair.relay.body)?.ids.length).map((pair) => pair.name)).toEqual(['page past the end']);
  }, 60_000);
});

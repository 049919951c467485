import { HOUR_MS } from '../../src/common/time';
import { ScheduledPurgesService } from '../../src/maintenance/scheduled-purges.service';
import { StoredFileOwners } from '../../src/storage/stored-file-owners';
import { startTestRelay, TestRelay } from '../support/test-relay';

/**
 * The purges know no folder: each module whose rows reference stored files registers their sweep.
 * One old orphan in every stored folder, and the sweeps the maintenance service runs from the
 * registry remove each of them: a folder whose owner did not register would keep its orphan.
 */
describe('scheduled purges sweep every stored folder through its registered owner', () => {
  let relay: TestRelay;
  beforeAll(async () => {
    relay = await startTestRelay();
  });
  afterAll(() => relay.close());

  const ORPHANS = [
    `builds/${'a'.repeat(32)}.apk`,
    `uploads/avatars/${'b'.repeat(32)}.png`,
    `uploads/logos/${'c'.repeat(32)}.png`,
    `uploads/comments/${'d'.repeat(32)}.png`,
    `recordings/rec-${'e'.repeat(32)}.webm`,
    `device-tests/hub-${'0'.repeat(32)}.png`,
  ];

  it('registers the four sweeps the purge metrics name, on their schedules', () => {
    const jobs = (every?: 'minute' | 'hour') => relay.app.get(StoredFileOwners).jobs(every).map((j) => [j.orphans, j.owners.length]);
    expect(jobs('minute')).toEqual([['orphan build files', 1]]);
    expect(jobs('hour').sort()).toEqual([
      ['orphan device-test evidence', 1],
      ['orphan recordings', 1],
      ['unreferenced uploads', 3],
    ]);
  });

  it('the start-up sweep removes an orphan from every folder', async () => {
    for (const key of ORPHANS) await relay.plantStoredFile(key, 'x', 2 * HOUR_MS);
    await relay.app.get(ScheduledPurgesService).sweepAfterCrash();
    for (const key of ORPHANS) expect([key, await relay.storedFileExists(key)]).toEqual([key, false]);
  });

  it('the scheduled sweeps spare young orphans and remove old ones, each on its schedule', async () => {
    for (const key of ORPHANS) await relay.plantStoredFile(key, 'x', 2 * HOUR_MS);
    const young = `uploads/avatars/${'f'.repeat(32)}.png`;
    await relay.plantStoredFile(young, 'x');
    const purges = relay.app.get(ScheduledPurgesService);
    await purges.runAll();
    expect(await relay.storedFileExists(ORPHANS[0])).toBe(false); // every minute, builds
    expect(await relay.storedFileExists(ORPHANS[1])).toBe(true); // hourly, not yet
    await purges.sweepUploads();
    for (const key of ORPHANS) expect([key, await relay.storedFileExists(key)]).toEqual([key, false]);
    expect(await relay.storedFileExists(young)).toBe(true);
  });
});

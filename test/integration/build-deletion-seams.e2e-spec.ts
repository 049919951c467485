import { EventEmitter2 } from '@nestjs/event-emitter';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BuildsDeletedEvent } from '../../src/builds/events/builds-deleted.event';
import { DAY_MS } from '../../src/common/time';
import { ScheduledPurgesService } from '../../src/maintenance/scheduled-purges.service';
import { attachBuild, fixture } from '../support/build-fixtures';
import { MemberFactory, TestMember } from '../support/factory';
import { images } from '../support/images';
import { startTestRelay, TestRelay } from '../support/test-relay';
import { eventually } from '../webhooks/support/webhook-helpers';

const WEBM = readFileSync(join(__dirname, '..', 'fixtures', 'recordings', 'two-seconds.webm'));

/**
 * The three ways a build disappears (app deletion, scheduled purge, missing file) as seen by the
 * features that keep per-build data: comments and their attachment files go; recordings, which
 * only name a build id, stay until their own 72 hours.
 */
describe('build deletion seen from comments and recordings', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  let dev: TestMember;
  const announced: BuildsDeletedEvent[] = [];

  beforeAll(async () => {
    relay = await startTestRelay({ SVC_BUILD_TTL_DAYS: '1' });
    members = new MemberFactory(relay);
    dev = await members.member('Developer');
    relay.app.get(EventEmitter2).on(BuildsDeletedEvent.eventName, (e: BuildsDeletedEvent) => announced.push(e));
  });
  afterAll(() => relay.close());

  /** A build with a comment carrying a PNG and a recording filed under it. */
  async function buildWithFollowers(fixture: string) {
    const build = (await attachBuild(members.as(dev, 'post', '/api/v1/builds'), fixture).expect(201)).body;
    await members
      .as(dev, 'post', '/api/v1/comments')
      .field('build_id', String(build.id))
      .field('body', 'see attached')
      .attach('attachment', images.png(), 'a.png')
      .expect(201);
    const comments = (await members.as(dev, 'get', `/api/v1/comments?build_id=${build.id}`).expect(200)).body;
    const attachment = (comments[0].attachments[0].file_path as string).replace(/^\//, '');
    const recording = (await members.as(dev, 'post', `/api/v1/recordings/upload?buildId=${build.id}`).attach('v', WEBM, 'r.webm').expect(200)).body.url;
    expect(await relay.storedFileExists(attachment)).toBe(true);
    return { id: build.id as number, appId: build.app_id as number, attachment, recording: recording as string };
  }

  async function expectGoneButRecordingKept(b: Awaited<ReturnType<typeof buildWithFollowers>>) {
    await members.as(dev, 'get', `/api/v1/builds/${b.id}`).expect(404);
    await members.as(dev, 'get', `/api/v1/comments?build_id=${b.id}`).expect(404);
    await eventually(async () => ((await relay.storedFileExists(b.attachment)) ? undefined : true), 3000, 'attachment file removal');
    const recordings = await members.as(dev, 'get', `/api/v1/recordings?buildId=${b.id}`).expect(200);
    expect(recordings.body.map((r: { url: string }) => r.url)).toEqual([b.recording]);
    await members.as(dev, 'get', b.recording).expect(200);
  }

  it('DELETE /apps/:id: builds.deleted (app_deleted); comments and attachment files go; recordings stay', async () => {
    const doomed = await buildWithFollowers('literal-label.apk');
    const kept = await buildWithFollowers('binary-nested.app.zip');
    await members.as(dev, 'delete', `/api/v1/apps/${doomed.appId}`).expect(200);
    expect(announced).toContainEqual(new BuildsDeletedEvent([doomed.id], 'app_deleted'));
    await expectGoneButRecordingKept(doomed);
    expect(await relay.storedFileExists(kept.attachment)).toBe(true);
    expect((await members.as(dev, 'get', `/api/v1/comments?build_id=${kept.id}`).expect(200)).body).toHaveLength(1);
  });

  it('the scheduled purge: builds.deleted (purged); comments and attachment files go; recordings stay', async () => {
    const doomed = await buildWithFollowers('string-label.apk');
    await members.as(dev, 'post', `/api/v1/builds/${doomed.id}/schedule-deletion`).expect(200);
    relay.clock.advance(DAY_MS - 60_000);
    await relay.app.get(ScheduledPurgesService).runAll();
    await members.as(dev, 'get', `/api/v1/builds/${doomed.id}`).expect(200); // not due yet
    relay.clock.advance(2 * 60_000);
    await relay.app.get(ScheduledPurgesService).runAll();
    expect(announced).toContainEqual(new BuildsDeletedEvent([doomed.id], 'purged'));
    await expectGoneButRecordingKept(doomed);
  });

  it("a build whose file vanished is swept (file_missing): comments and attachment files go; recordings stay", async () => {
    const doomed = await buildWithFollowers('xml-root.app.zip');
    const download = await members.as(dev, 'get', `/api/v1/builds/${doomed.id}/download`).expect(200);
    expect(Number(download.headers['content-length'])).toBeGreaterThan(0);
    // The file of this build is the one whose bytes are the fixture's (each fixture is uploaded once here).
    const fixtureBytes = readFileSync(fixture('xml-root.app.zip'));
    const mine: string[] = [];
    for (const name of await relay.storedFiles('builds/')) {
      if ((await relay.readStoredFile(`builds/${name}`)).equals(fixtureBytes)) mine.push(name);
    }
    expect(mine).toHaveLength(1);
    await relay.removeStoredFile(`builds/${mine[0]}`);
    await relay.app.get(ScheduledPurgesService).runAll();
    expect(announced).toContainEqual(new BuildsDeletedEvent([doomed.id], 'file_missing'));
    await expectGoneButRecordingKept(doomed);
  });
});

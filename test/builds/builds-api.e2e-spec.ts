import { Injectable, Module } from '@nestjs/common';
import { EventEmitter2, OnEvent } from '@nestjs/event-emitter';
import { BuildStatusChangedEvent } from '../../src/builds/events/build-status-changed.event';
import { BuildsDeletedEvent } from '../../src/builds/events/builds-deleted.event';
import { DAY_MS } from '../../src/common/time';
import { ScheduledPurgesService } from '../../src/maintenance/scheduled-purges.service';
import { attachBuild, tempFiles, buildFiles } from '../support/build-fixtures';
import { MemberFactory, TestMember } from '../support/factory';
import { startTestRelay, TestRelay } from '../support/test-relay';

/**
 * Listeners of build.status_changed registered the way the relay's own are (@OnEvent on a provider):
 * one that throws at once, one that rejects, and one that stays busy until the test releases it.
 */
@Injectable()
class StatusListenerProbe {
  calls = { threw: 0, rejected: 0, slowStarted: 0, slowFinished: 0 };
  private release: () => void = () => undefined;
  private gate = new Promise<void>((resolve) => (this.release = resolve));

  @OnEvent(BuildStatusChangedEvent.eventName)
  throwAtOnce(): void {
    this.calls.threw++;
    throw new Error('listener exploded');
  }

  @OnEvent(BuildStatusChangedEvent.eventName)
  async reject(): Promise<void> {
    this.calls.rejected++;
    throw new Error('listener rejected');
  }

  @OnEvent(BuildStatusChangedEvent.eventName)
  async stayBusy(): Promise<void> {
    this.calls.slowStarted++;
    await this.gate;
    this.calls.slowFinished++;
  }

  finishSlowListeners(): void {
    this.release();
    this.gate = new Promise<void>((resolve) => (this.release = resolve));
  }
}

@Module({ providers: [StatusListenerProbe] })
class StatusListenerProbeModule {}

describe('builds API: list, review, schedule, purge, download', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  let qa: TestMember;
  let viewer: TestMember;
  let pat: string;
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    relay = await startTestRelay({ SVC_BUILD_TTL_DAYS: '3' }, { imports: [StatusListenerProbeModule] });
    members = new MemberFactory(relay);
    qa = await members.member('QA');
    viewer = await members.member('Viewer');
    pat = await members.pat(qa, 'builds:write');
    // Five builds, one millisecond of relay time apart: oldest first.
    const plan: [string, string, Record<string, string>][] = [
      ['a', 'literal-label.apk', { status: 'Backlog' }],
      ['b', 'string-label.apk', { status: 'Done' }],
      ['c', 'xml-root.app.zip', {}],
      ['d', 'binary-root.tar.gz', { status: 'In Progress' }],
      ['e', 'xml-nested.tgz', { status: 'Rejected' }],
    ];
    for (const [key, file, fields] of plan) {
      relay.clock.advance(1000);
      ids[key] = (await attachBuild(members.withPat(pat, 'post', '/api/v1/builds'), file, fields).expect(201)).body.id;
    }
  });
  afterAll(() => relay.close());

  const list = async (query: string) => {
    const res = await members.withPat(pat, 'get', `/api/v1/builds${query}`).expect(200);
    return { ids: res.body.items.map((b: { id: number }) => b.id) as number[], total: res.body.total as number, items: res.body.items };
  };

  it('lists newest first with the full Build shape and total', async () => {
    const page = await list('');
    expect(page.ids).toEqual([ids.e, ids.d, ids.c, ids.b, ids.a]);
    expect(page.total).toBe(5);
    // The spec's fields, then five beyond it (docs/builds.md "Uploader and icon", "Flagged builds", "Provenance").
    expect(Object.keys(page.items[0]).sort()).toEqual(
      [
        'app_id', 'build_number', 'bundle_id', 'completed_at', 'delete_after', 'id', 'name', 'platform', 'status_label', 'uploaded_at', 'version_label', 'version_name',
        'uploaded_by', 'uploaded_by_id', 'icon_url', 'flags', 'provenance',
      ].sort(),
    );
    expect(page.items.map((b: { flags: unknown }) => b.flags)).toEqual([[], [], [], [], []]);
    expect(page.items.map((b: { provenance: unknown }) => b.provenance)).toEqual([null, null, null, null, null]);
  });

  it('filters by platform, status, app and version name (case-insensitive)', async () => {
    expect((await list('?platform=android')).ids).toEqual([ids.b, ids.a]);
    expect((await list('?status=In%20Progress')).ids).toEqual([ids.d]);
    const app = (await members.withPat(pat, 'get', `/api/v1/builds/${ids.c}`).expect(200)).body.app_id;
    expect((await list(`?app_id=${app}`)).ids).toEqual([ids.c]);
    expect((await list('?q=BETA')).ids).toEqual([ids.b]);
    expect((await list('?q=2.')).ids).toEqual([ids.e, ids.b, ids.a]); // 2.2, 2.0.0-beta, 1.2.3
    expect((await list('?q=%25')).total).toBe(0); // LIKE wildcards are literal
    expect((await list('?platform=ios&status=Rejected')).ids).toEqual([ids.e]);
  });

  it('sorts by version_name and status_label both ways, unset values last', async () => {
    // version names: a 1.2.3, b 2.0.0-beta, c 3.4.5, d 5.0.1, e 2.2
    expect((await list('?sort=version_name&dir=asc')).ids).toEqual([ids.a, ids.b, ids.e, ids.c, ids.d]);
    expect((await list('?sort=version_name&dir=desc')).ids).toEqual([ids.d, ids.c, ids.e, ids.b, ids.a]);
    expect((await list('?sort=status_label&dir=asc')).ids).toEqual([ids.a, ids.b, ids.d, ids.e, ids.c]);
    expect((await list('?sort=status_label&dir=desc')).ids).toEqual([ids.e, ids.d, ids.b, ids.a, ids.c]);
    expect((await list('?sort=uploaded_at&dir=asc')).ids).toEqual([ids.a, ids.b, ids.c, ids.d, ids.e]);
  });

  it('paginates with page and limit, capping limit at 100', async () => {
    expect(await list('?limit=2')).toMatchObject({ ids: [ids.e, ids.d], total: 5 });
    expect(await list('?limit=2&page=2')).toMatchObject({ ids: [ids.a], total: 5 });
    expect(await list('?limit=2&page=3')).toMatchObject({ ids: [], total: 5 });
    // Past the end the total is still every match's count (asked alone: there is no row to carry it).
    expect(await list('?platform=ios&limit=1&page=7')).toMatchObject({ ids: [], total: 3 });
    expect(await list('?q=2.&limit=2&page=4')).toMatchObject({ ids: [], total: 3 });
    expect(await list('?q=2.&limit=2&page=1')).toMatchObject({ ids: [ids.a], total: 3 });
    expect(await list('?status=Done&platform=ios')).toMatchObject({ ids: [], total: 0 });
    expect((await list('?limit=1000')).ids).toHaveLength(5);
  });

  it.each([
    ['page=-1', 'page must be a non-negative integer'],
    ['page=abc', 'page must be a non-negative integer'],
    ['page=1.5', 'page must be a non-negative integer'],
    ['limit=-5', 'limit must be an integer from 1 to 100'],
    ['limit=ten', 'limit must be an integer from 1 to 100'],
    ['limit=0', 'limit must be an integer from 1 to 100'],
    ['platform=windows', 'platform must be one of ios, android'],
    ['status=Approved', 'status must be one of Backlog, In Progress, Done, Rejected, untriaged'],
    ['sort=name', 'sort must be one of uploaded_at, version_name, status_label'],
    ['dir=up', 'dir must be asc or desc'],
    ['app_id=x', 'app_id must be a positive integer'],
  ])('refuses %s with 400', async (query, message) => {
    const res = await members.withPat(pat, 'get', `/api/v1/builds?${query}`).expect(400);
    expect(res.body).toEqual({ error: message });
  });

  it('GET /builds/:id is 404 "Build not found" for an unknown id', async () => {
    expect((await members.withPat(pat, 'get', '/api/v1/builds/99999').expect(404)).body).toEqual({ error: 'Build not found' });
    await members.withPat(pat, 'get', '/api/v1/builds/abc').expect(400);
  });

  it('lets a Viewer read builds but not change them (cookie or PAT), before storing any byte', async () => {
    await members.as(viewer, 'get', '/api/v1/builds').expect(200);
    await members.as(viewer, 'get', `/api/v1/builds/${ids.a}`).expect(200);
    const viewerPat = await members.pat(viewer, 'builds:write');
    const writes = [
      () => attachBuild(members.as(viewer, 'post', '/api/v1/builds'), 'literal-label.apk'),
      () => attachBuild(members.withPat(viewerPat, 'post', '/api/v1/builds'), 'literal-label.apk'),
      () => members.as(viewer, 'patch', `/api/v1/builds/${ids.a}`).send({ status_label: 'Done' }),
      () => members.as(viewer, 'post', `/api/v1/builds/${ids.a}/schedule-deletion`),
      () => members.as(viewer, 'delete', `/api/v1/builds/${ids.a}/schedule-deletion`),
    ];
    for (const write of writes) {
      const res = await write();
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: 'Viewers have read-only access' });
    }
    expect(tempFiles(relay)).toEqual([]);
    expect((await list('')).total).toBe(5);
  });

  it('PATCH changes status and label; completed_at follows Done/Rejected; events fire after the change', async () => {
    const events: BuildStatusChangedEvent[] = [];
    const emitter = relay.app.get(EventEmitter2);
    const listener = (e: BuildStatusChangedEvent) => events.push(e);
    emitter.on(BuildStatusChangedEvent.eventName, listener);
    try {
      const patch = (body: object) => members.as(qa, 'patch', `/api/v1/builds/${ids.c}`).send(body);
      const get = async () => (await members.as(qa, 'get', `/api/v1/builds/${ids.c}`).expect(200)).body;

      const before = relay.clock.nowMs();
      expect((await patch({ status_label: 'Done' }).expect(200)).body).toEqual({ ok: true });
      const done = await get();
      expect(done.status_label).toBe('Done');
      expect(Date.parse(done.completed_at)).toBeGreaterThanOrEqual(before);
      expect(Date.parse(done.completed_at)).toBeLessThanOrEqual(relay.clock.nowMs());
      relay.clock.advance(5000);
      await patch({ status_label: 'Done' }).expect(200); // same value: no event, completed_at kept
      await patch({ status_label: 'Rejected' }).expect(200); // Done → Rejected: completed_at kept
      expect((await get()).completed_at).toBe(done.completed_at);
      await patch({ version_label: 'release/1.0' }).expect(200);
      expect(await get()).toMatchObject({ version_label: 'release/1.0', status_label: 'Rejected' });
      await patch({ status_label: 'In Progress' }).expect(200);
      expect((await get()).completed_at).toBeNull();
      await patch({ status_label: null, version_label: null }).expect(200);
      expect(await get()).toMatchObject({ status_label: null, version_label: null, completed_at: null });

      expect(events.map((e) => [e.previousStatus, e.status])).toEqual([
        [null, 'Done'],
        ['Done', 'Rejected'],
        ['Rejected', 'In Progress'],
        ['In Progress', null],
      ]);
      expect(events[0].build).toEqual({
        id: ids.c,
        platform: 'ios',
        versionName: '3.4.5',
        buildNumber: '345',
        bundleId: 'com.example.demo',
        appId: done.app_id,
      });
      expect(events[0].changedAt).toBeInstanceOf(Date);
    } finally {
      emitter.off(BuildStatusChangedEvent.eventName, listener);
    }
  });

  it('a PATCH never waits for (or fails because of) a slow or throwing listener', async () => {
    const probe = relay.app.get(StatusListenerProbe);
    const before = { ...probe.calls };
    // answered while the slow listener is still busy (it waits for the test), with the others failed
    await members.as(qa, 'patch', `/api/v1/builds/${ids.c}`).send({ status_label: 'Done' }).expect(200, { ok: true });
    expect(probe.calls).toEqual({
      threw: before.threw + 1,
      rejected: before.rejected + 1,
      slowStarted: before.slowStarted + 1,
      slowFinished: before.slowFinished,
    });
    const build = await members.as(qa, 'get', `/api/v1/builds/${ids.c}`).expect(200);
    expect(build.body.status_label).toBe('Done');
    probe.finishSlowListeners();
    await new Promise((r) => setImmediate(r));
    expect(probe.calls.slowFinished).toBe(probe.calls.slowStarted);
    // the relay keeps serving
    await members.as(qa, 'get', '/api/v1/builds').expect(200);
  });

  it.each([
    [{ status_label: 'Approved' }, 'status_label must be one of Backlog, In Progress, Done, Rejected, or null'],
    [{ status_label: 5 }, 'status_label must be one of Backlog, In Progress, Done, Rejected, or null'],
    [{ version_label: 12 }, 'version_label must be a string or null'],
    [{}, 'Nothing to update: send status_label and/or version_label'],
  ])('PATCH refuses %j with 400', async (body, message) => {
    const res = await members.as(qa, 'patch', `/api/v1/builds/${ids.c}`).send(body).expect(400);
    expect(res.body).toEqual({ error: message });
  });

  it('PATCH of an unknown build is 404', async () => {
    await members.as(qa, 'patch', '/api/v1/builds/99999').send({ status_label: 'Done' }).expect(404);
  });

  it('downloads the stored file with Content-Length, Content-Disposition and Range', async () => {
    const full = await members
      .withPat(pat, 'get', `/api/v1/builds/${ids.a}/download`)
      .buffer(true)
      .parse((res, cb) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => cb(null, Buffer.concat(chunks)));
      })
      .expect(200);
    expect(full.headers['content-type']).toBe('application/vnd.android.package-archive');
    expect(full.headers['content-disposition']).toBe('attachment; filename="literal-label.apk"');
    expect(full.headers['accept-ranges']).toBe('bytes');
    expect(Number(full.headers['content-length'])).toBe(full.body.length);
    expect(full.body.subarray(0, 4).toString('latin1')).toBe('PK\u0003\u0004');
    const part = await members.withPat(pat, 'get', `/api/v1/builds/${ids.a}/download`).set('Range', 'bytes=0-3').expect(206);
    expect(part.headers['content-range']).toBe(`bytes 0-3/${full.body.length}`);
    expect(part.headers['content-length']).toBe('4');
    const viewPat = await members.pat(viewer, 'view');
    await members.withPat(viewPat, 'get', `/api/v1/builds/${ids.a}/download`).expect(200);
    await relay.http().get(`/api/v1/builds/${ids.a}/download`).expect(401);
    await members.withPat(pat, 'get', '/api/v1/builds/99999/download').expect(404);
  });

  it('schedules deletion TTL days ahead, cancels it, and purges due builds (rows, files) on the clock', async () => {
    const before = relay.clock.nowMs();
    const schedule = await members.as(qa, 'post', `/api/v1/builds/${ids.b}/schedule-deletion`).expect(200);
    const build = (await members.as(qa, 'get', `/api/v1/builds/${ids.b}`).expect(200)).body;
    const deleteAfter = Date.parse(build.delete_after);
    expect(deleteAfter).toBeGreaterThanOrEqual(before + 3 * DAY_MS);
    expect(deleteAfter).toBeLessThanOrEqual(relay.clock.nowMs() + 3 * DAY_MS);
    expect(schedule.body).toEqual({ ok: true, delete_after: build.delete_after.slice(0, 19).replace('T', ' ') });
    expect(build.status_label).toBe('Done'); // scheduling does not touch the review status

    await members.as(qa, 'post', `/api/v1/builds/${ids.a}/schedule-deletion`).expect(200);
    expect((await members.as(qa, 'delete', `/api/v1/builds/${ids.a}/schedule-deletion`).expect(200)).body).toEqual({ ok: true });
    expect((await members.as(qa, 'get', `/api/v1/builds/${ids.a}`).expect(200)).body.delete_after).toBeNull();
    await members.as(qa, 'post', '/api/v1/builds/99999/schedule-deletion').expect(404);
    await members.as(qa, 'delete', '/api/v1/builds/99999/schedule-deletion').expect(404);

    const deleted: BuildsDeletedEvent[] = [];
    relay.app.get(EventEmitter2).on(BuildsDeletedEvent.eventName, (e: BuildsDeletedEvent) => deleted.push(e));
    const filesBefore = (await buildFiles(relay)).length;
    const purges = relay.app.get(ScheduledPurgesService);
    relay.clock.advance(3 * DAY_MS - 60_000);
    await purges.runAll();
    await members.as(qa, 'get', `/api/v1/builds/${ids.b}`).expect(200); // not due yet
    relay.clock.advance(60_000);
    await purges.runAll();
    await members.as(qa, 'get', `/api/v1/builds/${ids.b}`).expect(404);
    await members.as(qa, 'get', `/api/v1/builds/${ids.a}`).expect(200);
    expect((await buildFiles(relay))).toHaveLength(filesBefore - 1);
    expect(deleted).toEqual([new BuildsDeletedEvent([ids.b], 'purged')]);
    expect((await list('')).total).toBe(4);
  });

  it('sweeps orphans: unreferenced files and rows whose file is gone', async () => {
    const stray = 'deadbeefdeadbeefdeadbeefdeadbeef.apk';
    await relay.plantStoredFile(`builds/${stray}`, 'left by a crash', 2 * 3600_000);
    const fresh = 'feedfacefeedfacefeedfacefeedface.apk';
    await relay.plantStoredFile(`builds/${fresh}`, 'being committed right now');
    // Remove the file of build d behind the relay's back.
    const dFile = (await buildFiles(relay)).find((f) => f.endsWith('.tar.gz'))!;
    await relay.removeStoredFile(`builds/${dFile}`);

    await relay.app.get(ScheduledPurgesService).runAll(); // periodic run: one-hour grace
    expect(await relay.storedFileExists(`builds/${stray}`)).toBe(false);
    expect(await relay.storedFileExists(`builds/${fresh}`)).toBe(true);
    await members.as(qa, 'get', `/api/v1/builds/${ids.d}`).expect(404);
    await relay.removeStoredFile(`builds/${fresh}`);
  });
});

import type { AgentDaemon } from '../../src/agent-daemon/agent-daemon';
import { FakeBackend } from '../../src/agent-daemon/backends/fake-backend';
import { HOUR_MS } from '../../src/common/time';
import { HubSessionEvidence } from '../../src/device-tests/evidence/hub-session-evidence.service';
import { ScheduledPurgesService } from '../../src/maintenance/scheduled-purges.service';
import { SessionRecordingsService } from '../../src/sessions/recording/session-recordings.service';
import { FileStore } from '../../src/storage/file-store';
import { agentToken } from '../agents/agent-kit';
import { auditEntries } from '../audit/audit-support';
import { describeUnless } from '../support/describe-unless';
import { MemberFactory, TestMember } from '../support/factory';
import { ffmpegSkipReason } from '../support/ffmpeg';
import { uploadTestBuild } from '../support/builds';
import { startTestRelay, TestRelay } from '../support/test-relay';
import { RunningAppium, runWdio, startAppiumAgent, startFakeAppium } from './hub-kit';

const DEVICE = 'fake-android-lab-ev';
const binary = (res: { on: (event: string, cb: (chunk?: Buffer) => void) => void }, done: (err: Error | null, body: Buffer) => void) => {
  const chunks: Buffer[] = [];
  res.on('data', (chunk) => chunks.push(chunk!));
  res.on('end', () => done(null, Buffer.concat(chunks)));
};

/** Every hub session recorded (docs/device-tests.md "What is recorded"): video, command timeline, final screenshot, device log; an Admin ending one. */
describeUnless(ffmpegSkipReason(), 'device-test sessions: evidence and ending', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  let admin: TestMember;
  let qa: TestMember;
  let devicesPat: string;
  let appium: RunningAppium;
  let agent: AgentDaemon;
  let build: { id: number; appId: number };
  let recorded: { id: string; body: Record<string, any> };

  beforeAll(async () => {
    // Appium starts in its own process while the relay starts here.
    [relay, appium] = await Promise.all([startTestRelay(), startFakeAppium()]);
    members = new MemberFactory(relay);
    admin = await members.admin();
    qa = await members.member('QA');
    devicesPat = await members.pat(qa, 'devices');
    agent = await startAppiumAgent(relay, await agentToken(members), 'lab-ev', appium, new FakeBackend('lab-ev', { enabled: true, width: 240, height: 480, fps: 30 }));
    build = await uploadTestBuild(members, qa);
  }, 120_000);
  afterAll(async () => {
    await agent?.stop();
    await appium?.close();
    await relay?.close();
  });

  const hub = () => `${relay.url}/wd/hub`;
  const sessionPath = (id: string) => `/api/v1/device-test-sessions/${id}`;
  const holderOf = async (sessionId: string) =>
    (await members.as(qa, 'get', '/api/v1/devices').expect(200)).body.items.find((d: { session_id: string }) => d.session_id === sessionId)?.holder ?? null;

  it('records a session: the video, its commands in order with a failing find’s W3C error, the final screenshot and the device log', async () => {
    const out = await runWdio('evidence', { url: hub(), token: devicesPat, caps: { 'svc:build': build.id, 'svc:name': 'ci / evidence'} }).result;
    expect(out).toEqual(expect.objectContaining({ sessionId: expect.any(String), deleted: true }));
    await relay.app.get(HubSessionEvidence).settled();
    const { body } = await members.as(qa, 'get', sessionPath(out.sessionId)).expect(200);
    recorded = { id: out.sessionId, body };
    expect(body).toEqual(
      expect.objectContaining({
        id: out.sessionId,
        state: 'ended',
        deviceSessionId: DEVICE,
        buildId: build.id,
        run: 'ci / evidence',
        endReason: 'deleted',
        recordingUrl: expect.stringMatching(/^\/api\/v1\/recordings\/rec-[0-9a-f]{32}\.mp4$/),
        screenshotUrl: `/api/v1/device-test-sessions/${out.sessionId}/screenshot`,
        deviceLogUrl: `/api/v1/device-test-sessions/${out.sessionId}/log`,
        logType: 'logcat',
        truncated: false,
        expiresAt: expect.stringMatching(/Z$/),
      }),
    );
    // What the client did, in order (WebdriverIO adds reads of its own between them: they are kept too).
    const commands = body.commands as Record<string, any>[];
    const named = commands.filter((c) => ['findElement', 'elementSendKeys', 'elementClick', 'deleteSession'].includes(c.command));
    expect(named.map((c) => [c.command, c.locator?.value ?? null, c.error?.error ?? null])).toEqual([
      ['findElement', 'username', null],
      ['elementSendKeys', null, null],
      ['findElement', 'login_button', null],
      ['elementClick', null, null],
      ['findElement', 'no_such_thing', 'no such element'],
      ['deleteSession', null, null],
    ]);
    expect(named[1].elementId).toBe(named[0].elementId);
    expect(named[3].elementId).toBe(named[2].elementId);
    expect(named[4]).toEqual(expect.objectContaining({ method: 'POST', path: '/element', status: 404, elementId: null }));
    expect(commands.at(-1)!.command).toBe('deleteSession');
    const ats = commands.map((c) => c.at);
    expect(ats).toEqual([...ats].sort((a, b) => a - b));
    expect(commands.every((c) => c.durationMs >= 0 && c.at >= 0)).toBe(true);

    const video = await members.as(qa, 'get', body.recordingUrl).buffer(true).parse(binary).expect(200);
    expect(video.headers['content-type']).toBe('video/mp4');
    expect((video.body as Buffer).subarray(4, 8).toString()).toBe('ftyp');
    const screenshot = await members.as(qa, 'get', body.screenshotUrl).buffer(true).parse(binary).expect(200);
    expect(screenshot.headers['content-type']).toBe('image/png');
    expect((screenshot.body as Buffer).subarray(1, 4).toString()).toBe('PNG');
    const log = await members.as(qa, 'get', body.deviceLogUrl).expect(200);
    expect(log.headers['content-type']).toMatch(/^text\/plain/);
    expect(log.text).toContain(`FakeDriver: POST /session/${out.sessionId}/element`);
    // The build's ended sessions (the build page's panel); a running one is never listed (its id is its key).
    const listed = await members.as(qa, 'get', `/api/v1/device-test-sessions?buildId=${build.id}`).expect(200);
    expect(listed.body).toEqual([body]);
    expect((await members.as(qa, 'get', '/api/v1/device-test-sessions?buildId=x')).status).toBe(400);
    // The files have the recordings' access: a session cookie, not a PAT.
    await members.withPat(await members.pat(qa, 'view'), 'get', body.screenshotUrl).expect(401);
  }, 60_000);

  it('lets an Admin end a running session: a non-Admin is refused, the device is freed, the client’s next command gets invalid session id', async () => {
    const held = runWdio('hold-then-act', { url: hub(), token: devicesPat, caps: { 'svc:build': build.id} });
    const { holding } = await held.firstLine;
    const running = await members.as(qa, 'get', sessionPath(holding)).expect(200);
    expect(running.body).toEqual(expect.objectContaining({ state: 'running', deviceSessionId: DEVICE, endedAt: null, recordingUrl: null }));
    const refused = await members.as(qa, 'delete', sessionPath(holding));
    expect(refused.status).toBe(403);
    await members.as(admin, 'delete', sessionPath(holding)).expect(204);
    expect(await holderOf(DEVICE)).toBeNull();
    await members.as(admin, 'delete', sessionPath(holding)).expect(404);
    held.release();
    const out = await held.result;
    expect(out.error).toEqual({ name: 'invalid session id', message: expect.stringContaining('ended (ended by an Admin)') });
    await relay.app.get(HubSessionEvidence).settled();
    const ended = await members.as(qa, 'get', sessionPath(holding)).expect(200);
    expect(ended.body).toEqual(expect.objectContaining({ state: 'ended', endReason: 'ended by an Admin', screenshotUrl: expect.any(String) }));
    // The command refused after the end is the client's mistake, not a step of the session.
    expect(ended.body.commands.map((c: { command: string }) => c.command)).not.toContain('getPageSource');
    const [entry] = await auditEntries({ relay, members } as never, admin, 'action=device_test_session.ended');
    expect(entry).toEqual(
      expect.objectContaining({
        action: 'device_test_session.ended',
        actor: admin.email,
        via: 'cookie',
        target: `session:${DEVICE}`,
        details: { hub_session_id: holding, build_id: build.id, run: null, held_by: qa.email },
      }),
    );
  }, 60_000);

  /** Opens a session straight through the hub (no client process), sends one command, and waits for the end `end` brings about. */
  async function endedSession(caps: object, end: () => Promise<unknown>): Promise<Record<string, any>> {
    const opened = await relay
      .http()
      .post('/wd/hub/session')
      .set('Authorization', `Bearer ${devicesPat}`)
      .send({ capabilities: { alwaysMatch: { platformName: 'Android', 'svc:build': build.id, ...caps } } })
      .expect(200);
    const id = opened.body.value.sessionId;
    await relay.http().get(`/wd/hub/session/${id}/source`).expect(200);
    await end();
    const deadline = Date.now() + 20_000;
    while ((await holderOf(DEVICE)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    await relay.app.get(HubSessionEvidence).settled();
    return (await members.as(qa, 'get', sessionPath(id)).expect(200)).body;
  }

  it('keeps the evidence of a session ended by newCommandTimeout', async () => {
    const body = await endedSession({ 'appium:newCommandTimeout': 1 }, async () => undefined);
    // The screenshot is not asserted: Appium got the same newCommandTimeout and may have deleted its session first.
    expect(body).toEqual(expect.objectContaining({ endReason: 'idle', recordingUrl: expect.stringMatching(/\.mp4$/), deviceLogUrl: expect.any(String) }));
    expect(body.commands.map((c: { command: string }) => c.command)).toEqual(['getPageSource']);
  }, 60_000);

  it('forgets the evidence with the recordings: 404 after 72 hours, files removed by the purge', async () => {
    const { id, body } = recorded;
    relay.clock.advance(72 * HOUR_MS + 60_000);
    await relay.app.get(ScheduledPurgesService).runAll();
    const cookie = await members.login(qa.email);
    expect((await relay.http().get(sessionPath(id)).set('Cookie', cookie)).status).toBe(404);
    expect((await relay.http().get(body.screenshotUrl).set('Cookie', cookie)).status).toBe(404);
    expect((await relay.http().get(body.recordingUrl).set('Cookie', cookie)).status).toBe(404);
    const left: string[] = [];
    for await (const key of relay.app.get(FileStore).list('device-tests/')) left.push(key);
    expect(left).toEqual([]);
  }, 60_000);

  it('keeps what it could of a session whose agent went away: the recording and commands, no screenshot or log', async () => {
    const body = await endedSession({}, async () => {
      // Once the video has its first frame (else nothing was recorded to keep); read from the recorder, which says so nowhere else.
      const recorder = relay.app.get(SessionRecordingsService) as unknown as { running: Map<string, { recording: { hasVideo: boolean } }> };
      const deadline = Date.now() + 20_000;
      while (!recorder.running.get(DEVICE)?.recording.hasVideo && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      await agent.stop();
    });
    expect(body).toEqual(
      expect.objectContaining({ endReason: 'agent offline', recordingUrl: expect.stringMatching(/\.mp4$/), screenshotUrl: null, deviceLogUrl: null, logType: null }),
    );
    expect(body.commands.map((c: { command: string }) => c.command)).toEqual(['getPageSource']);
  }, 60_000);
});

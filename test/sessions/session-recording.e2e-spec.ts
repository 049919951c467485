import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentDaemon } from '../../src/agent-daemon/agent-daemon';
import type { FakeVideoOptions } from '../../src/agent-daemon/backends/fake-backend';
import { streamBitrateBudget } from '../../src/agents/protocol/video-protocol';
import { RecordingMessages } from '../../src/sessions/recording/session-recordings.service';
import { auditSettled } from '../audit/audit-support';
import { attachBuild } from '../support/build-fixtures';
import { describeUnless, itUnless } from '../support/describe-unless';
import { MemberFactory, TestMember } from '../support/factory';
import { ffmpegSkipReason } from '../support/ffmpeg';
import { itSqliteOnly, startTestRelay, TestRelay, testStorage } from '../support/test-relay';
import { agentToken, startFakeAgent, TestPeer, until, wsUrl } from '../agents/agent-kit';

const VIDEO: FakeVideoOptions = { enabled: true, width: 240, height: 480, fps: 30 };
const recordingsOf = (sessionId: string) => `/api/v1/sessions/${sessionId}/recordings`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits for an asynchronous condition (agent-kit's `until` takes synchronous ones). */
async function eventually(condition: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(50);
  }
}

interface Probe {
  codec: string;
  width: number;
  height: number;
  frames: number;
  /** Frames a decoder told to skip all but key frames reads: fewer than `frames` when delta frames were kept. */
  keyFrames: number;
  duration: number;
  decodeErrors: string;
}

/** What Debian's ffprobe reads in the file, and what ffmpeg (5.1) says decoding all of it. */
function probe(path: string): Probe {
  const out = spawnSync(
    'ffprobe',
    ['-v', 'error', '-count_frames', '-show_entries', 'stream=codec_name,width,height,nb_read_frames:format=duration', '-of', 'json', path],
    { encoding: 'utf8' },
  );
  const json = JSON.parse(out.stdout);
  const keys = spawnSync(
    'ffprobe',
    ['-v', 'error', '-skip_frame', 'nokey', '-count_frames', '-show_entries', 'stream=nb_read_frames', '-of', 'json', path],
    { encoding: 'utf8' },
  );
  const stream = json.streams[0];
  // Decoded frames keep the file's own timestamps (capture times, not a 30 fps grid): only decoding errors are reported.
  const decode = spawnSync('ffmpeg', ['-v', 'error', '-i', path, '-fps_mode', 'passthrough', '-enc_time_base', '-1', '-f', 'null', '-'], {
    encoding: 'utf8',
  });
  return {
    codec: stream.codec_name,
    width: stream.width,
    height: stream.height,
    frames: Number(stream.nb_read_frames),
    keyFrames: Number(JSON.parse(keys.stdout).streams[0].nb_read_frames),
    duration: Number(json.format.duration),
    decodeErrors: decode.stderr.trim(),
  };
}

describeUnless(ffmpegSkipReason(), 'recorded sessions (POST /sessions/:sessionId/recordings)', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  let qa: TestMember;
  let viewPat: string;
  let token: string;
  let work: string;
  const agents: AgentDaemon[] = [];

  beforeAll(async () => {
    relay = await startTestRelay({ SVC_RECORDING_SNAPSHOT_INTERVAL_MS: '500', SVC_AGENT_REQUEST_TIMEOUT_MS: '5000' });
    members = new MemberFactory(relay);
    qa = await members.member('QA');
    viewPat = await members.pat(qa, 'view');
    token = await agentToken(members);
    work = mkdtempSync(join(tmpdir(), 'svc-rec-test-'));
  });
  afterAll(async () => {
    await Promise.all(agents.map((a) => a.stop()));
    await relay.close();
    rmSync(work, { recursive: true, force: true });
  });

  const agent = async (name: string, video = VIDEO) => {
    const daemon = await startFakeAgent(relay, token, name, video);
    agents.push(daemon);
    return daemon;
  };
  /** The recording's temp files (and any upload's): none may be left once a recording ended. */
  const leftInTmp = () => readdirSync(join(relay.dataDir, 'tmp'));
  /**
   * The recording's MP4 is created at its first key frame: wait for that (the fake agent's ffmpeg took
   * over 1.5 s to start on a loaded CI machine, and a stop before it is "nothing recorded"), then `ms` more.
   */
  const videoRecorded = async (ms = 500) => {
    await until(() => leftInTmp().length > 0, 20_000);
    await sleep(ms);
  };
  const download = async (url: string) => {
    const res = await fetch(`${relay.url}${url}`, { headers: { Cookie: qa.cookie } });
    expect(res.status).toBe(200);
    const path = join(work, `${Math.random().toString(16).slice(2)}.mp4`);
    writeFileSync(path, Buffer.from(await res.arrayBuffer()));
    return path;
  };
  const recordingAudit = async (sessionId: string) => {
    await auditSettled(relay);
    const page = await members.as(await members.admin(), 'get', `/api/v1/audit?limit=50&target=${encodeURIComponent(`session:${sessionId}`)}`).expect(200);
    return (page.body.items as { action: string; actor: string; via: string; details: unknown }[])
      .filter((e) => e.action.startsWith('recording.'))
      .map(({ action, actor, via, details }) => ({ action, actor, via, details }));
  };
  /** One device request over the session socket, as the dashboard (cookie) or a script (PAT) sends it. */
  const act = async (sessionId: string, headers: Record<string, string>, method: string, params: Record<string, unknown>) => {
    const peer = new TestPeer(wsUrl(relay, `/api/v1/sessions/${sessionId}/connect`), headers);
    await peer.opened;
    peer.send({ type: 'request', id: 1, method, params });
    const answer = (await peer.next((m) => m.json?.type === 'response')).json;
    peer.close();
    return answer;
  };

  it('records the stream to an MP4 without re-encoding, with a timeline of the tap and the swipe and who did them', async () => {
    await agent('rec-a');
    const sessionId = 'fake-android-rec-a';
    const askedAt = Date.now();
    const started = await members.as(qa, 'post', recordingsOf(sessionId)).send({ buildId: 4242 }).expect(201);
    expect(started.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      state: 'recording',
      sessionId,
      buildId: 4242,
      startedAt: expect.any(String),
      stopsAt: expect.any(String),
      startedBy: qa.email,
    });
    expect(Date.parse(started.body.stopsAt) - Date.parse(started.body.startedAt)).toBe(30 * 60_000);
    const again = await members.withPat(viewPat, 'post', recordingsOf(sessionId)).send({}).expect(409);
    expect(again.body).toEqual({ error: RecordingMessages.alreadyRecording });
    expect((await members.withPat(viewPat, 'get', `${recordingsOf(sessionId)}/current`).expect(200)).body.id).toBe(started.body.id);

    // Nobody watched the device: the agent starts its encoder now, the video begins at its first key frame
    // (waited for: its start-up took over 2 s at load 20, and the tap must fall inside the video).
    await videoRecorded(0);
    const dashboard = { Cookie: qa.cookie, Origin: relay.url };
    const tapAskedAt = Date.now();
    expect(await act(sessionId, dashboard, 'tap', { x: 0.25, y: 0.5 })).toMatchObject({ ok: true });
    await sleep(500);
    const script = { Authorization: `Bearer ${viewPat}` };
    expect(await act(sessionId, script, 'swipe', { fromX: 0.5, fromY: 0.8, toX: 0.5, toY: 0.2, durationMs: 200 })).toMatchObject({ ok: true });
    const swipeAnsweredAt = Date.now();
    // A viewer comes and goes meanwhile: it gets the live picture, and its leaving does not stop the agent's stream.
    const viewer = new TestPeer(wsUrl(relay, `/api/v1/sessions/${sessionId}/stream`), script);
    await viewer.opened;
    expect((await viewer.next()).json).toMatchObject({ type: 'config', width: 240, height: 480 });
    for (let i = 0; i < 20; i++) await viewer.next((m) => m.isBinary);
    viewer.close();
    await sleep(1500);
    const stopped = await members.withPat(viewPat, 'post', `${recordingsOf(sessionId)}/stop`).expect(200);
    const stoppedAt = Date.now();
    const recording = stopped.body;
    expect(Object.keys(recording).sort()).toEqual(['createdAt', 'expiresAt', 'fileSize', 'id', 'mime', 'sessionId', 'url']);
    expect(recording).toMatchObject({ sessionId, mime: 'video/mp4', url: expect.stringMatching(/^\/api\/v1\/recordings\/rec-[0-9a-f]{32}\.mp4$/) });
    expect(Date.parse(recording.expiresAt) - Date.parse(recording.createdAt)).toBe(72 * 3600_000);
    await members.withPat(viewPat, 'get', `${recordingsOf(sessionId)}/current`).expect(404);

    // Linked to the build under test, like an upload with that buildId.
    const listed = await members.as(qa, 'get', '/api/v1/recordings?buildId=4242').expect(200);
    expect(listed.body).toEqual([recording]);

    const file = await download(recording.url);
    const video = probe(file);
    expect(video).toMatchObject({ codec: 'h264', width: 240, height: 480, decodeErrors: '' });
    // Never longer than the recording was on (as this test saw it), so nothing from before the start. No
    // floor in seconds (the encoder's start-up and pace are the machine's): the swipe lies inside it (below).
    expect(video.duration).toBeGreaterThan(0);
    expect(video.duration).toBeLessThanOrEqual((stoppedAt - askedAt) / 1000);
    // The stream as sent, not re-encoded nor thinned to key frames: its delta frames are in the file, and
    // no more frames than the agent's 30 fps makes in the file's span (a count from below would be a claim
    // about how fast ffmpeg encodes on this machine, which bench/video.ts measures).
    expect(video.keyFrames).toBeGreaterThanOrEqual(1);
    expect(video.frames).toBeGreaterThan(video.keyFrames);
    expect(video.frames).toBeLessThan(video.duration * 30 * 1.2 + 2);

    const timeline = (await members.as(qa, 'get', `${recording.url}/timeline`).expect(200)).body;
    expect(timeline).toMatchObject({ sessionId, buildId: 4242, endedBy: 'stopped', truncated: false });
    expect(Math.abs(timeline.durationMs - video.duration * 1000)).toBeLessThan(100);
    const [tap, swipe] = timeline.events;
    expect(timeline.events).toHaveLength(2);
    expect(tap).toEqual({ at: expect.any(Number), type: 'tap', by: qa.email, via: 'cookie', outcome: 'ok', detail: { x: 0.25, y: 0.5 } });
    expect(swipe).toEqual({
      at: expect.any(Number),
      type: 'swipe',
      by: qa.email,
      via: 'pat',
      outcome: 'ok',
      detail: { fromX: 0.5, fromY: 0.8, toX: 0.5, toY: 0.2, durationMs: 200 },
    });
    // Offsets on the video's time line: the tap inside it, the swipe at least 0.5 s later and no further
    // from it than the test's own tap-to-swipe span, both before the end.
    expect(tap.at).toBeGreaterThan(0);
    expect(swipe.at - tap.at).toBeGreaterThanOrEqual(450);
    expect(swipe.at - tap.at).toBeLessThanOrEqual(swipeAnsweredAt - tapAskedAt);
    expect(swipe.at).toBeLessThan(timeline.durationMs);
    expect(timeline.snapshots.length).toBeGreaterThanOrEqual(1);
    expect(timeline.snapshots[0].tree.elements.length).toBeGreaterThan(0);
    // Timelines are recordings: cookie only, like the video.
    await members.withPat(viewPat, 'get', `${recording.url}/timeline`).expect(401);
    expect(leftInTmp()).toEqual([]);

    // Who started and stopped it is in the audit log.
    const audit = await recordingAudit(sessionId);
    expect(audit).toEqual([
      { action: 'recording.stopped', actor: qa.email, via: 'pat', details: expect.objectContaining({ reason: 'stopped', stored: true, url: recording.url }) },
      { action: 'recording.started', actor: qa.email, via: 'cookie', details: { recording_id: started.body.id, build_id: 4242 } },
    ]);
  }, 60_000);

  it('records the fake agent\'s full-size picture at a rate that fits the maximum duration under the size cap', async () => {
    // 720×1600 at 30 fps of ffmpeg's test pattern, every pixel moving: the worst picture there is (issue 40 item 8:
    // it made 13 MB in 10 s before the relay asked for a rate).
    await agent('rec-size', { enabled: true });
    const sessionId = 'fake-android-rec-size';
    await members.as(qa, 'post', recordingsOf(sessionId)).send({}).expect(201);
    await videoRecorded(3000);
    const recording = (await members.as(qa, 'post', `${recordingsOf(sessionId)}/stop`).expect(200)).body;
    const video = probe(await download(recording.url));
    expect(video).toMatchObject({ codec: 'h264', width: 720, height: 1600, decodeErrors: '' });
    // By content: the file's bytes per second of its own video, against what 30 min may spend of 200 MiB.
    const budgetBytesPerSecond = 209_715_200 / 1800;
    expect(video.duration).toBeGreaterThan(0);
    expect(recording.fileSize / video.duration).toBeLessThan(budgetBytesPerSecond);
    expect(streamBitrateBudget(209_715_200, 1_800_000) / 8).toBeLessThan(budgetBytesPerSecond);
  }, 60_000);

  it('refuses: 404 unknown session, 409 not booted / not recording, 403 without the view scope, 400 a bad buildId', async () => {
    await agent('rec-b');
    const write = await members.pat(qa, 'builds:write');
    expect((await members.as(qa, 'post', recordingsOf('nope')).send({}).expect(404)).body).toEqual({ error: 'Session not found' });
    expect((await members.as(qa, 'post', `${recordingsOf('nope')}/stop`).expect(404)).body).toEqual({ error: 'Session not found' });
    expect((await members.as(qa, 'post', recordingsOf('fake-off-rec-b')).send({}).expect(409)).body).toEqual({ error: 'Device is not booted' });
    expect((await members.as(qa, 'post', `${recordingsOf('fake-android-rec-b')}/stop`).expect(409)).body).toEqual({ error: RecordingMessages.notRecording });
    expect((await members.withPat(write, 'post', recordingsOf('fake-android-rec-b')).send({}).expect(403)).body).toEqual({ error: 'Insufficient scope' });
    expect((await members.withPat(write, 'post', `${recordingsOf('fake-android-rec-b')}/stop`).expect(403)).body).toEqual({ error: 'Insufficient scope' });
    await members.as(qa, 'post', recordingsOf('fake-android-rec-b')).send({ buildId: 'x' }).expect(400);
    await members.as(qa, 'post', recordingsOf('fake-android-rec-b')).send({ buildId: 0 }).expect(400);
    await relay.http().post(recordingsOf('fake-android-rec-b')).send({}).expect(401);
    await members.as(qa, 'get', '/api/v1/recordings/rec-0123456789abcdef0123456789abcdef.mp4/timeline').expect(404);
    await members.as(qa, 'get', `${recordingsOf('fake-android-rec-b')}/current`).expect(404);
  });

  it('keeps a playable file when the agent goes away mid-recording, and a late stop still gets it', async () => {
    const daemon = await agent('rec-c');
    const sessionId = 'fake-android-rec-c';
    await members.as(qa, 'post', recordingsOf(sessionId)).send({}).expect(201);
    await videoRecorded(1500); // the encoder's start-up (over 3 s on a busy machine), then about 1.5 s of video
    await daemon.stop();
    await eventually(async () => (await members.as(qa, 'get', `${recordingsOf(sessionId)}/current`)).status === 404);
    const recording = (await members.as(qa, 'post', `${recordingsOf(sessionId)}/stop`).expect(200)).body;
    expect(recording).toMatchObject({ sessionId, mime: 'video/mp4' });
    const video = probe(await download(recording.url));
    expect(video).toMatchObject({ codec: 'h264', width: 240, height: 480, decodeErrors: '' });
    expect(video.duration).toBeGreaterThan(0.5);
    expect(video.frames).toBeGreaterThan(video.keyFrames);
    const timeline = (await members.as(qa, 'get', `${recording.url}/timeline`).expect(200)).body;
    expect(timeline).toMatchObject({ endedBy: 'agent_offline', buildId: null, events: [] });
    expect((await recordingAudit(sessionId))[0]).toMatchObject({ action: 'recording.stopped', actor: 'relay', via: 'system', details: { reason: 'agent_offline' } });
    await until(() => leftInTmp().length === 0);
  }, 60_000);

  it('stores nothing and leaves nothing in the temp folder when the device sends no video', async () => {
    await agent('rec-d', { enabled: false });
    const sessionId = 'fake-android-rec-d';
    await members.as(qa, 'post', recordingsOf(sessionId)).send({}).expect(201);
    await eventually(async () => (await members.as(qa, 'get', `${recordingsOf(sessionId)}/current`)).status === 404);
    const stop = await members.as(qa, 'post', `${recordingsOf(sessionId)}/stop`).expect(409);
    expect(stop.body).toEqual({ error: RecordingMessages.nothingRecorded });
    expect(leftInTmp()).toEqual([]);
    expect((await members.as(qa, 'get', '/api/v1/recordings').expect(200)).body.filter((r: { sessionId: string }) => r.sessionId === sessionId)).toEqual([]);
  }, 30_000);

  it('links the recording to the build installed on the session, and remembers it as the next default', async () => {
    await agent('rec-g');
    const sessionId = 'fake-android-rec-g';
    const build = (await attachBuild(members.as(qa, 'post', '/api/v1/builds'), 'string-label.apk', { status: 'Backlog' }).expect(201)).body;
    const started = await members.as(qa, 'post', recordingsOf(sessionId)).send({}).expect(201);
    expect(started.body.buildId).toBeNull();
    const script = { Authorization: `Bearer ${viewPat}` };
    expect(await act(sessionId, script, 'install_build', { buildId: build.id, url: `/api/v1/builds/${build.id}/download` })).toMatchObject({ ok: true });
    await videoRecorded();
    const recording = (await members.as(qa, 'post', `${recordingsOf(sessionId)}/stop`).expect(200)).body;
    expect((await members.as(qa, 'get', `/api/v1/recordings?buildId=${build.id}`).expect(200)).body).toEqual([recording]);
    const timeline = (await members.as(qa, 'get', `${recording.url}/timeline`).expect(200)).body;
    expect(timeline.buildId).toBe(build.id);
    expect(timeline.events).toEqual([expect.objectContaining({ type: 'install_build', outcome: 'ok', detail: expect.objectContaining({ buildId: build.id }) })]);
    const next = await members.as(qa, 'post', recordingsOf(sessionId)).send({}).expect(201);
    expect(next.body.buildId).toBe(build.id);
    await members.as(qa, 'post', `${recordingsOf(sessionId)}/stop`);
  }, 60_000);

  itUnless(testStorage === 's3' ? 'breaks the data folder to make the store fail' : null, 'leaves nothing behind when the recording cannot be stored', async () => {
    await agent('rec-f');
    const sessionId = 'fake-android-rec-f';
    await members.as(qa, 'post', recordingsOf(sessionId)).send({}).expect(201);
    await videoRecorded();
    // The recordings folder replaced by a file: moving the MP4 into the store fails.
    const folder = join(relay.dataDir, 'recordings');
    renameSync(folder, `${folder}.aside`);
    writeFileSync(folder, 'not a folder');
    try {
      const stop = await members.as(qa, 'post', `${recordingsOf(sessionId)}/stop`).expect(500);
      expect(stop.body).toEqual({ error: expect.any(String) });
    } finally {
      rmSync(folder);
      renameSync(`${folder}.aside`, folder);
    }
    expect(leftInTmp()).toEqual([]);
    expect(readdirSync(folder)).not.toContainEqual(expect.stringMatching(/\.part$/));
    const listed = (await members.as(qa, 'get', '/api/v1/recordings').expect(200)).body as { sessionId: string }[];
    expect(listed.filter((r) => r.sessionId === sessionId)).toEqual([]);
  }, 30_000);

  it('MCP start_recording / stop_recording record through the same routes, with the caller’s PAT', async () => {
    await agent('rec-e');
    const sessionId = 'fake-android-rec-e';
    const client = new Client({ name: 'svc-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${relay.url}/api/v1/mcp`), { requestInit: { headers: { Authorization: `Bearer ${viewPat}` } } }),
    );
    type ToolResult = { isError?: boolean; content: { type: string; text?: string }[] };
    const call = async (name: string, args: Record<string, unknown>) =>
      (await client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })) as ToolResult;
    try {
      const started = await call('start_recording', { session_id: sessionId, build_id: 77 });
      expect(started.isError).toBeFalsy();
      expect(JSON.parse(started.content[0].text!)).toMatchObject({ state: 'recording', sessionId, buildId: 77, startedBy: qa.email });
      const twice = await call('start_recording', { session_id: sessionId });
      expect(twice).toMatchObject({ isError: true, content: [{ text: `${RecordingMessages.alreadyRecording} (HTTP 409)` }] });
      await call('tap', { session_id: sessionId, x: 0.5, y: 0.5 });
      await videoRecorded();
      const stopped = await call('stop_recording', { session_id: sessionId });
      expect(stopped.isError).toBeFalsy();
      const recording = JSON.parse(stopped.content[0].text!);
      expect(recording).toMatchObject({ sessionId, mime: 'video/mp4' });
      expect((await members.as(qa, 'get', '/api/v1/recordings?buildId=77').expect(200)).body).toEqual([recording]);
      const timeline = (await members.as(qa, 'get', `${recording.url}/timeline`).expect(200)).body;
      expect(timeline.events).toEqual([expect.objectContaining({ type: 'tap', by: qa.email, via: 'mcp' })]);
      expect(probe(await download(recording.url))).toMatchObject({ codec: 'h264', width: 240, height: 480, decodeErrors: '' });
      const notRecording = await call('stop_recording', { session_id: 'fake-ios-rec-e' });
      expect(notRecording).toMatchObject({ isError: true, content: [{ text: `${RecordingMessages.notRecording} (HTTP 409)` }] });
    } finally {
      await client.close();
    }
  }, 60_000);

  describe('with a maximum duration of 5 s', () => {
    let short: TestRelay;
    let daemon: AgentDaemon;
    let member: TestMember;
    beforeAll(async () => {
      short = await startTestRelay({ SVC_MAX_RECORDING_DURATION_MS: '5000' });
      const shortMembers = new MemberFactory(short);
      daemon = await startFakeAgent(short, await agentToken(shortMembers), 'rec-max', VIDEO);
      member = await shortMembers.member('QA');
    });
    afterAll(async () => {
      await daemon.stop();
      await short.close();
    });

    it('stops by itself at the maximum duration and keeps what it recorded', async () => {
      const path = recordingsOf('fake-android-rec-max');
      const started = Date.now();
      await short.http().post(path).set('Cookie', member.cookie).send({}).expect(201);
      await eventually(async () => (await short.http().get(`${path}/current`).set('Cookie', member.cookie)).status === 404);
      const endedBy = Date.now();
      expect(endedBy - started).toBeGreaterThanOrEqual(4900);
      const recording = (await short.http().post(`${path}/stop`).set('Cookie', member.cookie).expect(200)).body;
      const timeline = (await short.http().get(`${recording.url}/timeline`).set('Cookie', member.cookie).expect(200)).body;
      expect(timeline.endedBy).toBe('max_duration');
      const res = await fetch(`${short.url}${recording.url}`, { headers: { Cookie: member.cookie } });
      const file = join(work, 'max.mp4');
      writeFileSync(file, Buffer.from(await res.arrayBuffer()));
      const video = probe(file);
      expect(video).toMatchObject({ codec: 'h264', decodeErrors: '' });
      // Something kept (5 s less the encoder's start-up, which took nearly all of it at load 20: no floor in
      // seconds); no longer than the recording was on (as this test saw it).
      expect(video.duration).toBeGreaterThan(0);
      expect(video.duration).toBeLessThanOrEqual((endedBy - started) / 1000);
    }, 30_000);
  });

  describe('when the relay stops', () => {
    const ownDataDir = () => mkdtempSync(join(tmpdir(), 'svc-rec-shutdown-'));
    const disk =
      testStorage === 's3'
        ? (name: string, fn: jest.ProvidesCallback, timeout?: number) => itUnless('reads the data folder, where S3 storage keeps no recordings', name, fn, timeout)
        : itSqliteOnly('reads the stopped relay’s SQLite file and data folder');

    disk('stores the recording as far as it got before the database closes', async () => {
      const dataDir = ownDataDir();
      const stopping = await startTestRelay({ SVC_DATA_DIR: dataDir });
      let daemon: AgentDaemon | null = null;
      try {
        const stoppingMembers = new MemberFactory(stopping);
        daemon = await startFakeAgent(stopping, await agentToken(stoppingMembers), 'rec-down', VIDEO);
        const member = await stoppingMembers.member('QA');
        await stopping.http().post(recordingsOf('fake-android-rec-down')).set('Cookie', member.cookie).send({ buildId: 5 }).expect(201);
        // The MP4 begins at the first key frame (the encoder's start-up took over 3 s on a busy machine), then some video.
        await until(() => readdirSync(join(dataDir, 'tmp')).length > 0, 20_000);
        await sleep(1500);
        await stopping.close();
        const db = new Database(join(dataDir, 'svc.sqlite'), { readonly: true });
        const rows = db.prepare('SELECT filename, session_id, build_id, mime FROM recordings').all() as { filename: string }[];
        db.close();
        expect(rows).toEqual([{ filename: expect.stringMatching(/^rec-[0-9a-f]{32}\.mp4$/), session_id: 'fake-android-rec-down', build_id: 5, mime: 'video/mp4' }]);
        const stored = readdirSync(join(dataDir, 'recordings')).sort();
        expect(stored).toEqual([rows[0].filename, `${rows[0].filename}.timeline.json`]);
        expect(probe(join(dataDir, 'recordings', rows[0].filename))).toMatchObject({ codec: 'h264', decodeErrors: '' });
        expect(readdirSync(join(dataDir, 'tmp'))).toEqual([]);
      } finally {
        await daemon?.stop();
        rmSync(dataDir, { recursive: true, force: true });
      }
    }, 40_000);
  });
});

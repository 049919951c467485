import childProcess = require('node:child_process');
import { AgentDaemon } from '../../src/agent-daemon/agent-daemon';
import { FakeBackend, FakeVideoOptions } from '../../src/agent-daemon/backends/fake-backend';
import { AgentDirectory } from '../../src/agents/agent-directory.service';
import { AgentVideoFeed } from '../../src/agents/agent-video-feed';
import { binaryFramePrefix, decodeBinaryFrame } from '../../src/agents/protocol/agent-protocol';
import { MAX_VIDEO_UNIT_BYTES } from '../../src/agents/protocol/video-protocol';
import { DeviceSessionClients } from '../../src/sessions/device-session-clients.service';
import { MAX_REPLAY_AGE_MS, STREAM_SILENCE_MS } from '../../src/sessions/video/video-hub.service';
import { MAX_VIEWER_UNSENT_BYTES, VideoViewer } from '../../src/sessions/video/video-viewer';
import { MemberFactory, TestMember } from '../support/factory';
import { itUnless } from '../support/describe-unless';
import { ffmpegSkipReason } from '../support/ffmpeg';
import { fixtureAccessUnits } from '../support/video-fixture';
import { startTestRelay, TestRelay } from '../support/test-relay';
import { agentToken, device, Received, TestPeer, until, upgradeRefusal, wsUrl } from '../agents/agent-kit';

const streamPath = (id: string) => `/api/v1/sessions/${id}/stream`;

const [KEY_UNIT] = fixtureAccessUnits();
const FIXTURE_CONFIG = { type: 'config', codec: 'avc1.42C00A', width: 100, height: 60 };

/** An agent's video frame: the header (size filled in unless given) and the access unit. */
function videoFrame(sessionId: string, seq: number, key: boolean, unit: Buffer, extra: Record<string, unknown> = {}): Buffer {
  const header = { type: 'video', sessionId, seq, key, ts: 1_700_000_000_000 + seq, size: unit.length, ...extra };
  return Buffer.concat([binaryFramePrefix(header), unit]);
}
const delta = (bytes = 200) => Buffer.alloc(bytes, 0x41);
const isFrame = (m: Received) => m.isBinary;

describe('live video (GET /sessions/:sessionId/stream)', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  let qa: TestMember;
  let viewPat: string;
  let token: string;

  beforeAll(async () => {
    relay = await startTestRelay({ SVC_AGENT_REQUEST_TIMEOUT_MS: '2000' });
    members = new MemberFactory(relay);
    qa = await members.member('QA');
    viewPat = await members.pat(qa, 'view');
    token = await agentToken(members);
  });
  afterAll(() => relay.close());

  const viewer = async (sessionId: string, headers: Record<string, string> = { Authorization: `Bearer ${viewPat}` }) => {
    const peer = new TestPeer(wsUrl(relay, streamPath(sessionId)), headers);
    await peer.opened;
    return peer;
  };
  const refuse = (id: string, headers: Record<string, string>) => upgradeRefusal(wsUrl(relay, streamPath(id)), headers);
  const header = (m: Received) => decodeBinaryFrame(m.data)!.header as { seq: number; key: boolean; ts: number };

  describe('with a hand-driven agent', () => {
    let agent: TestPeer;
    beforeEach(async () => {
      agent = await TestPeer.agent(relay, token, 'streamer');
      await agent.announce(relay, [device('lv-1'), device('lv-2'), device('lv-3'), device('lv-4'), device('lv-5'), device('lv-off', 'shutdown')]);
    });
    afterEach(() => agent.close());

    /** The first viewer makes the relay ask the agent to start; the agent agrees. */
    async function started(sessionId: string, headers?: Record<string, string>) {
      const peer = await viewer(sessionId, headers);
      const start = await agent.nextRequest('stream_start');
      expect(start.params).toEqual({ sessionId, maxBitrate: expect.any(Number) });
      agent.send({ type: 'response', id: start.id, ok: true, result: {} });
      return peer;
    }

    it('refuses exactly like the session socket: 401, 403 (scope, other site), 404, 409, 502', async () => {
      expect(await refuse('lv-1', {})).toEqual({ status: 401, body: { error: 'Unauthorized' } });
      const write = await members.pat(qa, 'builds:write');
      expect(await refuse('lv-1', { Authorization: `Bearer ${write}` })).toEqual({ status: 403, body: { error: 'Insufficient scope' } });
      expect((await refuse('lv-1', { Cookie: qa.cookie, Origin: 'http://evil.example' })).status).toBe(403);
      expect(await refuse('nope', { Authorization: `Bearer ${viewPat}` })).toEqual({ status: 404, body: { error: 'Session not found' } });
      expect(await refuse('lv-off', { Authorization: `Bearer ${viewPat}` })).toEqual({ status: 409, body: { error: 'Device is not booted' } });
      const gone = await TestPeer.agent(relay, token, 'gone');
      await gone.announce(relay, [device('lv-gone')]);
      gone.close();
      await until(() => !relay.app.get(AgentDirectory).locate('lv-gone')?.connection);
      expect(await refuse('lv-gone', { Authorization: `Bearer ${viewPat}` })).toEqual({ status: 502, body: { error: 'Agent offline' } });
      const own = await viewer('lv-1', { Cookie: qa.cookie, Origin: relay.url });
      own.close();
    });

    it('sends the config, then frames from a key frame on, with seq increasing; stops the agent when the last viewer leaves', async () => {
      const one = await started('lv-1');
      agent.send(videoFrame('lv-1', 0, false, delta())); // before any key frame: nobody can decode it
      agent.send(videoFrame('lv-1', 1, true, KEY_UNIT));
      agent.send(videoFrame('lv-1', 2, false, delta()));
      agent.send(videoFrame('lv-1', 2, false, delta())); // a repeated seq is dropped
      agent.send(videoFrame('lv-1', 3, false, delta()));
      expect((await one.next()).json).toEqual(FIXTURE_CONFIG);
      const frames = [await one.next(isFrame), await one.next(isFrame), await one.next(isFrame)];
      expect(frames.map(header)).toEqual([
        { seq: 1, key: true, ts: 1_700_000_000_001 },
        { seq: 2, key: false, ts: 1_700_000_000_002 },
        { seq: 3, key: false, ts: 1_700_000_000_003 },
      ]);
      expect(decodeBinaryFrame(frames[0].data)!.payload).toEqual(KEY_UNIT);

      // A second viewer gets the current group of pictures at once: config, key frame, deltas since.
      const two = await viewer('lv-1', { Cookie: qa.cookie });
      expect((await two.next()).json).toEqual(FIXTURE_CONFIG);
      expect([await two.next(isFrame), await two.next(isFrame), await two.next(isFrame)].map((m) => header(m).seq)).toEqual([1, 2, 3]);
      agent.send(videoFrame('lv-1', 4, false, delta()));
      expect(header(await one.next(isFrame)).seq).toBe(4);
      expect(header(await two.next(isFrame)).seq).toBe(4);

      one.close();
      await one.closed;
      two.close();
      const stop = await agent.nextRequest('stream_stop');
      expect(stop.params).toEqual({ sessionId: 'lv-1' });
    });

    it('a paused viewer drops frames up to a key frame; the other viewer and the agent lose nothing', async () => {
      const fast = await started('lv-2');
      const slow = await viewer('lv-2');
      (slow.socket as unknown as { _socket: { pause(): void; resume(): void } })._socket.pause();
      const unit = delta(32 * 1024);
      const clients = relay.app.get(DeviceSessionClients);
      let seq = 0;
      let maxUnsent = 0;
      const send = async (count: number) => {
        for (let i = 0; i < count; i++, seq++) {
          agent.send(videoFrame('lv-2', seq, seq % 100 === 0, seq % 100 === 0 ? KEY_UNIT : unit));
          await new Promise((r) => setTimeout(r, 3));
          for (const c of clients.of('lv-2')) maxUnsent = Math.max(maxUnsent, c.socket.bufferedAmount);
        }
      };
      await send(400);
      const fastSeqs: number[] = [];
      while (fastSeqs.length < 400) fastSeqs.push(header(await fast.next(isFrame, 10_000)).seq);
      expect(fastSeqs).toEqual([...Array(400).keys()]);
      // The slow viewer's queue stayed bounded, and the agent's connection was never held up.
      expect(maxUnsent).toBeLessThanOrEqual(MAX_VIEWER_UNSENT_BYTES + 64 * 1024);
      expect(agent.socket.bufferedAmount).toBe(0);

      let slowLastRead = Date.now();
      slow.socket.on('message', () => (slowLastRead = Date.now()));
      (slow.socket as unknown as { _socket: { resume(): void } })._socket.resume();
      await until(() => clients.of('lv-2').every((c) => c.socket.bufferedAmount === 0), 10_000);
      // Drained in the kernel too, and so its answer to the relay's lag ping read (a loaded machine
      // took long enough that the key frame below still found the viewer lagging, and dropped it).
      await until(() => Date.now() - slowLastRead > 300, 10_000);
      await send(5); // seq 400 is a key frame
      const slowSeqs: number[] = [];
      for (;;) {
        const seen = header(await slow.next(isFrame, 10_000)).seq;
        slowSeqs.push(seen);
        if (seen === 404) break;
      }
      const gapAt = slowSeqs.findIndex((s, i) => i > 0 && s !== slowSeqs[i - 1] + 1);
      expect(gapAt).toBeGreaterThan(0); // it fell behind and frames were dropped for it
      expect(slowSeqs[gapAt] % 100).toBe(0); // and it came back at a key frame
      expect(slowSeqs.slice(-5)).toEqual([400, 401, 402, 403, 404]);
      fast.close();
      slow.close();
      await agent.nextRequest('stream_stop');
    }, 60_000);

    it('asks the agent for a key frame for a viewer joining an old group of pictures, or when the viewer asks; replays when the agent cannot make one', async () => {
      const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
      // (A waiter that timed out stays registered: used last on a peer, for requests nothing else waits for.)
      const nothing = (peer: TestPeer, match: (m: Received) => boolean, ms = 300) => peer.next(match, ms).then(() => 'something', () => 'nothing');
      const one = await started('lv-4');
      agent.send(videoFrame('lv-4', 0, true, KEY_UNIT));
      agent.send(videoFrame('lv-4', 1, false, delta()));
      expect(header(await one.next(isFrame)).seq).toBe(0);
      expect(header(await one.next(isFrame)).seq).toBe(1);
      await sleep(MAX_REPLAY_AGE_MS + 100);

      // The group of pictures is older than a second: no stale replay; a fresh key frame is asked for.
      const two = await viewer('lv-4');
      const ask = await agent.nextRequest('stream_keyframe');
      expect(ask.params).toEqual({ sessionId: 'lv-4' });
      agent.send({ type: 'response', id: ask.id, ok: true, result: { forced: true } });
      await sleep(300);
      agent.send(videoFrame('lv-4', 2, false, delta()));
      agent.send(videoFrame('lv-4', 3, true, KEY_UNIT));
      // Its first frame is the new key frame: nothing of the old group before it.
      expect((await two.next()).json).toEqual(FIXTURE_CONFIG);
      expect(header(await two.next(isFrame))).toMatchObject({ seq: 3, key: true });
      expect([header(await one.next(isFrame)).seq, header(await one.next(isFrame)).seq]).toEqual([2, 3]);

      // The viewer itself asks (its decoder lost its place); the agent cannot make one: the replay serves.
      await sleep(1000); // one request a second per session
      agent.send(videoFrame('lv-4', 4, false, delta()));
      expect(header(await two.next(isFrame)).seq).toBe(4);
      two.send({ type: 'keyframe' });
      const again = await agent.nextRequest('stream_keyframe');
      agent.send({ type: 'response', id: again.id, ok: true, result: { forced: false } });
      expect([header(await two.next(isFrame)).seq, header(await two.next(isFrame)).seq]).toEqual([3, 4]);
      two.send({ type: 'keyframe' }); // within the second: not passed on
      expect(await nothing(agent, (m) => m.json?.method === 'stream_keyframe')).toBe('nothing');

      // From then on, a new viewer of this agent gets the replay at once, however old.
      await sleep(MAX_REPLAY_AGE_MS + 100);
      const three = await viewer('lv-4');
      expect((await three.next()).json).toEqual(FIXTURE_CONFIG);
      expect([header(await three.next(isFrame)).seq, header(await three.next(isFrame)).seq]).toEqual([3, 4]);
      for (const peer of [one, two, three]) peer.close();
      await agent.nextRequest('stream_stop');
    }, 20_000);

    it('a viewer whose frames wait in the kernel (its ping unanswered for MAX_VIEWER_LAG_MS) is behind too, and is asked a key frame for once drained', async () => {
      const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
      // The frames the relay judged the slow viewer behind at (watched, not changed: the real offer runs).
      const behindAt: number[] = [];
      const offer = VideoViewer.prototype.offer;
      const watch = jest.spyOn(VideoViewer.prototype, 'offer').mockImplementation(function (this: VideoViewer, ...args: Parameters<typeof offer>) {
        const outcome = offer.apply(this, args);
        if (outcome === 'behind' && args[0].sessionId === 'lv-5') behindAt.push(args[0].seq);
        return outcome;
      });
      try {
        const fast = await started('lv-5');
        const slow = await viewer('lv-5');
        const raw = (slow.socket as unknown as { _socket: { pause(): void; resume(): void } })._socket;
        raw.pause();
        // Small frames at 30 fps until the relay judges the paused viewer behind (its ping unanswered for
        // MAX_VIEWER_LAG_MS), then 5 more: a few kB, which the sockets' kernel buffers take without the relay
        // holding any, so only the ping can tell. Without the ping the 20 s of frames run out and this fails.
        let seq = 0;
        for (; behindAt.length === 0 || seq < behindAt[0] + 5; seq++) {
          if (seq === 600) throw new Error('the relay never judged the paused viewer behind');
          agent.send(videoFrame('lv-5', seq, seq === 0, seq === 0 ? KEY_UNIT : delta()));
          await sleep(33);
        }
        raw.resume();
        // Deltas keep coming; once the viewer has drained (its pong back) the relay asks for a key frame for it.
        const ask: { request?: { id: number } } = {};
        const asking = agent.next((m) => m.json?.type === 'request' && m.json.method === 'stream_keyframe', 30_000).then((m) => (ask.request = m.json));
        for (; !ask.request; seq++) {
          if (seq === 1200) throw new Error('the relay never asked for a key frame for the drained viewer');
          agent.send(videoFrame('lv-5', seq, false, delta()));
          await Promise.race([asking, sleep(33)]);
        }
        agent.send({ type: 'response', id: ask.request.id, ok: true, result: { forced: true } });
        const keySeq = seq;
        agent.send(videoFrame('lv-5', keySeq, true, KEY_UNIT));
        const fastSeqs: number[] = [];
        while (fastSeqs.length < keySeq + 1) fastSeqs.push(header(await fast.next(isFrame)).seq);
        expect(fastSeqs).toEqual([...Array(keySeq + 1).keys()]);
        const slowSeqs: number[] = [];
        while (slowSeqs.at(-1) !== keySeq) slowSeqs.push(header(await slow.next(isFrame)).seq);
        // It got a gap-free start, nothing from the frame it was judged behind at on (nothing stale), then
        // the new key frame. A relay that kept sending to it would show the frames from behindAt[0] on.
        const lastBefore = slowSeqs.at(-2)!;
        expect(lastBefore).toBeLessThan(behindAt[0]);
        expect(slowSeqs).toEqual([...Array(lastBefore + 1).keys(), keySeq]);
        fast.close();
        slow.close();
        await agent.nextRequest('stream_stop');
      } finally {
        watch.mockRestore();
      }
    }, 60_000);

    it('tells an agent that streams a session nobody watches to stop', async () => {
      agent.send(videoFrame('lv-3', 0, true, KEY_UNIT));
      agent.send(videoFrame('lv-3', 1, false, delta()));
      const stopOfLv3 = (m: Received) => m.json?.method === 'stream_stop' && m.json.params?.sessionId === 'lv-3';
      await agent.next(stopOfLv3);
      // Once per 5 s, not once per frame.
      expect(await agent.next(stopOfLv3, 300).catch(() => null)).toBeNull();
    });

    it('drops oversized or inconsistent frames from an agent without closing it', async () => {
      const one = await started('lv-1');
      agent.send(videoFrame('lv-1', 0, true, KEY_UNIT, { pad: 'x'.repeat(2000) })); // header over 1 KiB
      agent.send(videoFrame('lv-1', 1, true, Buffer.concat([KEY_UNIT, Buffer.alloc(MAX_VIDEO_UNIT_BYTES)]))); // unit over 4 MiB
      agent.send(videoFrame('lv-1', 2, true, KEY_UNIT, { size: KEY_UNIT.length + 1 })); // size does not match
      agent.send(videoFrame('lv-1', 3, true, KEY_UNIT, { seq: -1 }));
      agent.send(videoFrame('other-agents-session', 4, true, KEY_UNIT));
      agent.send(videoFrame('lv-1', 5, true, KEY_UNIT));
      expect((await one.next()).json).toEqual(FIXTURE_CONFIG);
      expect(header(await one.next(isFrame)).seq).toBe(5);
      expect(agent.socket.readyState).toBe(agent.socket.OPEN);
      one.close();
      await agent.nextRequest('stream_stop');
    });

    it('closes the viewers with the agent’s reason when it cannot stream, and with 4502 when it goes away', async () => {
      const one = await viewer('lv-1');
      const start = await agent.nextRequest('stream_start');
      agent.send({ type: 'response', id: start.id, ok: false, error: { code: 'unsupported', message: 'Live video on test is not supported here' } });
      expect(await one.closed).toEqual({ code: 1011, reason: 'Live video on test is not supported here' });

      const two = await started('lv-2');
      agent.close();
      expect((await two.closed).code).toBe(4502);
    });
  });

  it('asks an agent that replaced its connection under the same name to stream again', async () => {
    const first = await TestPeer.agent(relay, token, 'replaced');
    await first.announce(relay, [device('lv-re')]);
    const one = await viewer('lv-re');
    const start = await first.nextRequest('stream_start');
    first.send({ type: 'response', id: start.id, ok: true, result: {} });
    first.send(videoFrame('lv-re', 0, true, KEY_UNIT));
    expect(header(await one.next(isFrame)).seq).toBe(0);

    const second = await TestPeer.agent(relay, token, 'replaced');
    await second.announce(relay, [device('lv-re')]);
    expect((await first.closed).code).toBe(4000);
    const again = await second.next((m) => m.json?.method === 'stream_start', 3 * STREAM_SILENCE_MS).then((m) => m.json);
    expect(again.params).toEqual({ sessionId: 'lv-re', maxBitrate: expect.any(Number) });
    second.send({ type: 'response', id: again.id, ok: true, result: {} });
    second.send(videoFrame('lv-re', 0, true, KEY_UNIT)); // its sequence starts over, at a key frame
    expect(header(await one.next(isFrame)).seq).toBe(0);
    one.close();
    await second.nextRequest('stream_stop');
    second.close();
  }, 30_000);

  describe('with the reference agent', () => {
    const videoAgent = (name: string, video: FakeVideoOptions) => {
      const daemon = new AgentDaemon({ relayUrl: relay.url, token, name, backend: new FakeBackend(name, video), version: 'test', log: () => undefined });
      daemon.start();
      return daemon;
    };

    itUnless(ffmpegSkipReason(), 'streams the fake devices’ encoded picture (--fake) and stops the encoder when the last viewer leaves', async () => {
      const name = 'video-agent';
      const daemon = videoAgent(name, { width: 240, height: 480, fps: 30 });
      const sessionId = `fake-android-${name}`;
      await until(() => relay.app.get(AgentDirectory).locate(sessionId)?.connection);
      let arrived = 0;
      const unsubscribe = relay.app.get(AgentVideoFeed).subscribe((f) => (arrived += f.sessionId === sessionId ? 1 : 0));
      try {
        const openedAt = Date.now();
        const one = await viewer(sessionId);
        expect((await one.next(() => true, 15_000)).json).toEqual({ type: 'config', codec: 'avc1.42C015', width: 240, height: 480 });
        const frames: { seq: number; key: boolean; ts: number }[] = [];
        for (let i = 0; i < 45; i++) frames.push(header(await one.next(isFrame, 15_000)));
        expect(frames[0].key).toBe(true);
        expect(frames.slice(1).every((f, i) => f.seq > frames[i].seq)).toBe(true);
        expect(frames.filter((f) => f.key).length).toBeGreaterThanOrEqual(1);
        // ts is the capture clock in epoch milliseconds (not the encoder's own time): taken while this test watched.
        expect(frames[44].ts).toBeGreaterThanOrEqual(openedAt);
        expect(frames[44].ts).toBeLessThanOrEqual(Date.now());
        one.close();
        await one.closed;
        await until(() => relay.app.get(AgentVideoFeed) && arrived > 0);
        // Once stopped, nothing more arrives from the agent.
        await new Promise((r) => setTimeout(r, 1000));
        const settled = arrived;
        await new Promise((r) => setTimeout(r, 1000));
        expect(arrived).toBe(settled);
      } finally {
        unsubscribe();
        await daemon.stop();
      }
    }, 60_000);

    itUnless(ffmpegSkipReason(), 'a viewer joining a stream with a 10 s key-frame interval gets a fresh key frame asked for at once, not the next periodic one; the others see no gap', async () => {
      const name = 'video-gop';
      const daemon = videoAgent(name, { width: 240, height: 480, fps: 30, keyFrameSeconds: 10 });
      const sessionId = `fake-android-${name}`;
      await until(() => relay.app.get(AgentDirectory).locate(sessionId)?.connection);
      // The encoders the agent starts for this session (watched, not changed): the main one runs with -nostdin,
      // a standby (woken for a key frame on request) reads its start signal on stdin.
      const spawns = jest.spyOn(childProcess, 'spawn');
      const encoders = () => spawns.mock.calls.map(([, args]) => (args as string[]).join(' ')).filter((args) => args.includes(sessionId));
      try {
        const one = await viewer(sessionId);
        const seen: { seq: number; key: boolean }[] = [];
        one.socket.on('message', (data: Buffer, isBinary: boolean) => isBinary && seen.push(header({ data, isBinary })));
        await until(() => seen.length > 0, 15_000);
        await new Promise((r) => setTimeout(r, MAX_REPLAY_AGE_MS + 500));

        const joinedAt = Date.now();
        const two = await viewer(sessionId);
        const first = header(await two.next(isFrame, 15_000));
        // A key frame captured after the viewer came, not the stream's first one replayed; and out of the
        // encoder's periodic rhythm (every 300 frames from the first, 10 s at 30 fps): the relay asked for it.
        expect(first.key).toBe(true);
        expect(first.ts).toBeGreaterThanOrEqual(joinedAt);
        expect(seen[0].key).toBe(true);
        expect((first.seq - seen[0].seq) % 300).not.toBe(0);

        // The first viewer went on through the switch to the standby encoder: every frame the agent made, in
        // order, none missing or repeated, the new key frame among them and no other key frame since the first.
        await until(() => seen.length > 0 && seen.at(-1)!.seq >= first.seq + 15, 15_000);
        expect(seen.map((f) => f.seq)).toEqual(seen.map((_, i) => seen[0].seq + i));
        expect(seen.filter((f) => f.key).map((f) => f.seq)).toEqual([seen[0].seq, first.seq]);
        // No restart: a restarted encoder stalls every viewer for its start-up (0.3-1 s), which consecutive
        // seqs cannot show, so count the processes: the main encoder was started once, and the key frame came
        // from the standby that was already waiting (a new standby is started once it takes over).
        expect(encoders().filter((args) => args.includes('-nostdin'))).toHaveLength(1);
        expect(encoders().filter((args) => args.includes('pipe:0'))).toHaveLength(2);
        one.close();
        two.close();
      } finally {
        spawns.mockRestore();
        await daemon.stop();
      }
    }, 60_000);
  });
});

import { connect } from 'node:net';
import { AgentDaemon } from '../../src/agent-daemon/agent-daemon';
import { fakePng, fakeUiTree } from '../../src/agent-daemon/backends/fake-backend';
import { AgentDirectory } from '../../src/agents/agent-directory.service';
import { encodeBinaryFrame } from '../../src/agents/protocol/agent-protocol';
import { MemberFactory, TestMember } from '../support/factory';
import { startTestRelay, TestRelay } from '../support/test-relay';
import { rawBody } from '../support/raw-body';
import { agentToken, device, startFakeAgent, TestPeer, until } from '../agents/agent-kit';

const JPEG_MAGIC = Buffer.from([0xff, 0xd8, 0xff]);


describe('sessions REST: screenshot and UI tree through the agent (spec §4 Sessions, agent-protocol §2.4)', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  let viewer: TestMember;
  let token: string;
  let fake: AgentDaemon;

  beforeAll(async () => {
    // Short enough for the 504 test to stay quick, long enough that a loaded 2-core CI machine writing a
    // 6 MB answer into the agent's socket is not taken for a silent agent (300 ms was, now and then).
    relay = await startTestRelay({ SVC_SCREENSHOT_TIMEOUT_MS: '1500', SVC_UI_TREE_TIMEOUT_MS: '1500' });
    members = new MemberFactory(relay);
    viewer = await members.member('Viewer');
    token = await agentToken(members);
    fake = await startFakeAgent(relay, token, 'mac-mini');
  });
  afterAll(async () => {
    await fake.stop();
    await relay.close();
  });

  const get = (path: string) => members.as(viewer, 'get', `/api/v1/sessions/${path}`);

  describe('round trips with the reference agent (fake backend)', () => {
    it('returns the PNG screenshot byte for byte with image/png', async () => {
      const res = await get('fake-ios-mac-mini/screenshot').buffer(true).parse(rawBody).expect(200);
      expect(res.headers['content-type']).toBe('image/png');
      expect(Buffer.compare(res.body, fakePng('fake-ios-mac-mini'))).toBe(0);
      const explicit = await get('fake-android-mac-mini/screenshot?format=png').buffer(true).parse(rawBody).expect(200);
      expect(Buffer.compare(explicit.body, fakePng('fake-android-mac-mini'))).toBe(0);
    });

    it('returns a JPEG with image/jpeg for format=jpeg', async () => {
      const res = await get('fake-ios-mac-mini/screenshot?format=jpeg').buffer(true).parse(rawBody).expect(200);
      expect(res.headers['content-type']).toBe('image/jpeg');
      expect(res.body.subarray(0, 3)).toEqual(JPEG_MAGIC);
    });

    it('rejects any other format with 400', async () => {
      for (const format of ['gif', 'PNG', '']) {
        const res = await get(`fake-ios-mac-mini/screenshot?format=${format}`);
        expect(res.status).toBe(400);
        expect(res.body).toEqual({ error: 'format must be png or jpeg' });
      }
    });

    it('returns the UI tree as spec UI elements', async () => {
      const res = await get('fake-android-mac-mini/ui-tree').expect(200);
      expect(res.body).toEqual({ elements: fakeUiTree() });
    });

    it('answers 404 for a session no agent listed and 409 for a shut-down device', async () => {
      expect((await get('nobody-listed-this/screenshot')).status).toBe(404);
      expect((await get('nobody-listed-this/ui-tree')).status).toBe(404);
      const shut = await get('fake-off-mac-mini/screenshot');
      expect(shut.status).toBe(409);
      expect(shut.body).toEqual({ error: 'Device is not booted' });
      expect((await get('fake-off-mac-mini/ui-tree')).status).toBe(409);
    });

    it('accepts the cookie or a PAT with view; refuses no credentials (401) and a PAT without view (403)', async () => {
      const view = await members.pat(viewer, 'view');
      await members.withPat(view, 'get', '/api/v1/sessions/fake-ios-mac-mini/ui-tree').expect(200);
      const write = await members.pat(viewer, 'builds:write');
      await members.withPat(write, 'get', '/api/v1/sessions/fake-ios-mac-mini/ui-tree').expect(403);
      await relay.http().get('/api/v1/sessions/fake-ios-mac-mini/screenshot').expect(401);
    });
  });

  describe('with an agent that lies, stalls or goes away', () => {
    let liar: TestPeer;

    beforeEach(async () => {
      liar = await TestPeer.agent(relay, token, 'liar');
      await liar.announce(relay, [device('liar-a'), device('liar-b'), device('liar-c')]);
    });
    afterEach(async () => {
      liar.close();
      await liar.closed;
    });

    it('maps agent error codes: not_found 404, not_booted 409, failed and unsupported 502 with the message', async () => {
      const cases = [
        { code: 'not_found', status: 404 },
        { code: 'not_booted', status: 409, error: 'Device is not booted' },
        { code: 'failed', status: 502, error: 'screencap crashed' },
        { code: 'unsupported', status: 502, error: 'screencap crashed' },
      ];
      for (const c of cases) {
        const pending = get('liar-a/screenshot');
        const answered = pending.then((res) => res);
        const request = await liar.nextRequest('screenshot');
        liar.send({ type: 'response', id: request.id, ok: false, error: { code: c.code, message: 'screencap crashed' } });
        const res = await answered;
        expect(res.status).toBe(c.status);
        if (c.error) expect(res.body).toEqual({ error: c.error });
      }
    });

    it('sends the sessionId and format in the request and passes binary bytes through untouched', async () => {
      const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3, 255, 254, 0, 0]);
      const answered = get('liar-a/screenshot').buffer(true).parse(rawBody).then((r) => r);
      const request = await liar.nextRequest('screenshot');
      expect(request.params).toEqual({ sessionId: 'liar-a', format: 'png' });
      liar.send(encodeBinaryFrame({ type: 'response', id: request.id, ok: true, result: { mime: 'image/png' } }, bytes));
      const res = await answered;
      expect(res.status).toBe(200);
      expect(Buffer.compare(res.body, bytes)).toBe(0);
    });

    it('reassembles a binary response sent as many fragments, even with the header cut across them', async () => {
      const bytes = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 7) % 256));
      const answered = get('liar-b/screenshot').buffer(true).parse(rawBody).then((r) => r);
      const request = await liar.nextRequest('screenshot');
      const frame = encodeBinaryFrame({ type: 'response', id: request.id, ok: true, result: { mime: 'image/png' } }, bytes);
      const cuts = [2, 9, 40, 41, 30_000, 65_536, frame.length];
      cuts.forEach((end, i) => liar.socket.send(frame.subarray(i ? cuts[i - 1] : 0, end), { binary: true, fin: i === cuts.length - 1 }));
      const res = await answered;
      expect(res.status).toBe(200);
      expect(res.headers['content-length']).toBe(String(bytes.length));
      expect(Buffer.compare(res.body, bytes)).toBe(0);
    });

    it('correlates concurrent requests by id when answers come in reverse order', async () => {
      const a = get('liar-a/screenshot').buffer(true).parse(rawBody).then((r) => r);
      const reqA = await liar.nextRequest('screenshot');
      const b = get('liar-b/screenshot').buffer(true).parse(rawBody).then((r) => r);
      const reqB = await liar.nextRequest('screenshot');
      const tree = get('liar-c/ui-tree').then((r) => r);
      const reqC = await liar.nextRequest('ui_tree');
      expect(new Set([reqA.id, reqB.id, reqC.id]).size).toBe(3);
      liar.send({ type: 'response', id: reqC.id, ok: true, result: { elements: [] } });
      liar.send(encodeBinaryFrame({ type: 'response', id: reqB.id, ok: true, result: { mime: 'image/png' } }, Buffer.from('B')));
      liar.send(encodeBinaryFrame({ type: 'response', id: reqA.id, ok: true, result: { mime: 'image/jpeg' } }, Buffer.from('A')));
      const [resA, resB, resC] = await Promise.all([a, b, tree]);
      expect([resA.body.toString(), resA.headers['content-type']]).toEqual(['A', 'image/jpeg']);
      expect([resB.body.toString(), resB.headers['content-type']]).toEqual(['B', 'image/png']);
      expect(resC.body).toEqual({ elements: [] });
    });

    it('keeps requests to different agents apart', async () => {
      const mine = get('liar-a/ui-tree').then((r) => r);
      const theirs = get('fake-ios-mac-mini/ui-tree').then((r) => r);
      const request = await liar.nextRequest('ui_tree');
      liar.send({ type: 'response', id: request.id, ok: true, result: { elements: [{ role: 'liar', label: 'x', identifier: 'l', frame: { x: 0, y: 0, width: 1, height: 1 }, enabled: false }] } });
      expect((await mine).body.elements[0].role).toBe('liar');
      expect((await theirs).body).toEqual({ elements: fakeUiTree() });
    });

    it('answers 504 when the agent stays silent (screenshot and UI tree), and drops the late answer', async () => {
      const started = Date.now();
      const shot = get('liar-a/screenshot').then((r) => r);
      const request = await liar.nextRequest('screenshot');
      const res = await shot;
      expect(res.status).toBe(504);
      expect(res.body).toEqual({ error: 'Screenshot timed out' });
      expect(Date.now() - started).toBeGreaterThanOrEqual(1450);
      liar.send(encodeBinaryFrame({ type: 'response', id: request.id, ok: true, result: { mime: 'image/png' } }, Buffer.from('late')));

      const tree = await get('liar-a/ui-tree');
      await liar.nextRequest('ui_tree'); // asked, never answered
      expect(tree.status).toBe(504);
      expect(tree.body).toEqual({ error: 'UI tree timed out' });

      // the socket is still in use, and the next request gets its own answer, not the late one
      const next = get('liar-a/ui-tree').then((r) => r);
      const fresh = await liar.nextRequest('ui_tree');
      liar.send({ type: 'response', id: fresh.id, ok: true, result: { elements: [] } });
      expect((await next).body).toEqual({ elements: [] });
    });

    it('answers 502 when the agent goes away mid-request, and for its sessions afterwards', async () => {
      const pending = get('liar-a/screenshot').then((r) => r);
      await liar.nextRequest('screenshot');
      liar.socket.terminate();
      const res = await pending;
      expect(res.status).toBe(502);
      expect(res.body).toEqual({ error: 'Agent offline' });
      const after = await get('liar-b/ui-tree');
      expect(after.status).toBe(502);
      expect(after.body).toEqual({ error: 'Agent offline' });
    });

    it('passes large answers through byte for byte, many at once and round after round, while the memory of answered ones is read into again', async () => {
      let seed = 5;
      const random = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed / 0x80000000);
      const image = (n: number) => {
        const bytes = Buffer.allocUnsafe(n);
        for (let i = 0; i < n; i++) bytes[i] = (random() * 256) | 0;
        return bytes;
      };
      for (let round = 0; round < 4; round++) {
        const sessions = ['liar-a', 'liar-b', 'liar-c'];
        // Made before asking: the suite's screenshot timeout is running from the request on.
        const images = sessions.map(() => image(100_000 + Math.floor(random() * 250_000)));
        const answers = sessions.map((s) => get(`${s}/screenshot`).buffer(true).parse(rawBody).then((r) => r));
        const requests: { id: string; params: { sessionId: string } }[] = [];
        for (let i = 0; i < sessions.length; i++) requests.push(await liar.nextRequest('screenshot'));
        // Answered in reverse order, one of them cut in fragments of its own sizes.
        for (let i = requests.length - 1; i >= 0; i--) {
          const frame = encodeBinaryFrame({ type: 'response', id: requests[i].id, ok: true, result: { mime: 'image/png' } }, images[i]);
          if (i !== 1) liar.send(frame);
          else [0, 30, 70_001, 200_000].forEach((at, k, cuts) => liar.socket.send(frame.subarray(at, cuts[k + 1] ?? frame.length), { binary: true, fin: k === cuts.length - 1 }));
        }
        const results = await Promise.all(answers);
        results.forEach((res, i) => {
          const asked = requests.findIndex((r) => r.params.sessionId === sessions[i]);
          expect(res.status).toBe(200);
          expect(Buffer.compare(res.body, images[asked])).toBe(0);
        });
      }
    });

    it('never reads a new answer into the memory of one still being written to a slow client', async () => {
      // 6 MB does not fit in loopback's socket buffers while the client is not reading: the rest of
      // the first answer waits in the relay's write queue while the second answer arrives.
      const fill = (n: number, seed: number) => {
        const bytes = Buffer.allocUnsafe(n);
        for (let i = 0; i < n; i++) bytes[i] = (i * seed + (i >> 11)) & 0xff;
        return bytes;
      };
      const first = fill(6_000_000, 7);
      const second = fill(6_000_000, 13);
      const slow = connect(relay.port, '127.0.0.1');
      const chunks: Buffer[] = [];
      slow.on('data', (chunk: Buffer) => chunks.push(chunk));
      slow.pause();
      slow.write(`GET /api/v1/sessions/liar-a/screenshot HTTP/1.1\r\nHost: x\r\nCookie: ${viewer.cookie}\r\nConnection: close\r\n\r\n`);
      const asked = await liar.nextRequest('screenshot');
      liar.send(encodeBinaryFrame({ type: 'response', id: asked.id, ok: true, result: { mime: 'image/png' } }, first));
      await new Promise((resolve) => setTimeout(resolve, 150));
      const fast = get('liar-b/screenshot').buffer(true).parse(rawBody).then((r) => r);
      const next = await liar.nextRequest('screenshot');
      liar.send(encodeBinaryFrame({ type: 'response', id: next.id, ok: true, result: { mime: 'image/png' } }, second));
      expect(Buffer.compare((await fast).body, second)).toBe(0);
      const ended = new Promise((resolve) => slow.once('end', resolve));
      slow.resume();
      await ended;
      const response = Buffer.concat(chunks);
      const body = response.subarray(response.indexOf('\r\n\r\n') + 4);
      expect(response.subarray(0, 15).toString()).toBe('HTTP/1.1 200 OK');
      expect(body.length).toBe(first.length);
      expect(Buffer.compare(body, first)).toBe(0);
    });

    it('answers 502 when the agent goes away in the middle of a large frame, and the next answers are whole', async () => {
      const pending = get('liar-a/screenshot').then((r) => r);
      const request = await liar.nextRequest('screenshot');
      const payload = encodeBinaryFrame({ type: 'response', id: request.id, ok: true, result: { mime: 'image/png' } }, Buffer.alloc(400_000, 7));
      // One masked client frame (RFC 6455 §5.2) written raw, cut off a third of the way in.
      const head = Buffer.alloc(14);
      head[0] = 0x82;
      head[1] = 0x80 | 127;
      head.writeBigUInt64BE(BigInt(payload.length), 2);
      head.set([1, 2, 3, 4], 10);
      // Masked in place with a plain loop: the relay's screenshot timeout is already running, and
      // a per-byte callback over 400 kB took long enough on a loaded machine to answer 504 instead.
      const masked = Buffer.from(payload);
      for (let i = 0; i < masked.length; i++) masked[i] ^= (i & 3) + 1;
      const raw = (liar.socket as unknown as { _socket: { write(b: Buffer): void } })._socket;
      raw.write(Buffer.concat([head, masked.subarray(0, 130_000)]));
      await new Promise((resolve) => setTimeout(resolve, 50));
      liar.socket.terminate();
      const res = await pending;
      expect(res.status).toBe(502);
      expect(res.body).toEqual({ error: 'Agent offline' });
      const shot = await get('fake-ios-mac-mini/screenshot').buffer(true).parse(rawBody);
      expect(shot.status).toBe(200);
      expect(Buffer.compare(shot.body, fakePng('fake-ios-mac-mini'))).toBe(0);
    });

    it('answers 502 when the agent replies with something that is not an image', async () => {
      const pending = get('liar-a/screenshot').then((r) => r);
      const request = await liar.nextRequest('screenshot');
      liar.send({ type: 'response', id: request.id, ok: true, result: { mime: 'text/html' } });
      expect((await pending).status).toBe(502);
    });
  });

  it('keeps the last list of an agent that went away: its sessions answer 502, not 404', async () => {
    const gone = await TestPeer.agent(relay, token, 'gone');
    await gone.announce(relay, [device('gone-1')]);
    gone.close();
    await gone.closed;
    await until(() => relay.app.get(AgentDirectory).locate('gone-1')?.connection === null);
    const res = await get('gone-1/screenshot');
    expect(res.status).toBe(502);
  });
});

import {
  decodeBinaryFragments,
  decodeBinaryFrame,
  encodeBinaryFrame,
  parseAgentMessage,
  parseClientRequest,
  sendBinaryFrame,
} from './agent-protocol';

const text = (value: unknown) => parseAgentMessage(Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)), false);

describe('agent protocol codec', () => {
  it('round-trips the binary response framing byte for byte', () => {
    const payload = Buffer.from([0, 255, 1, 254, 0x89, 0x50]);
    const header = { type: 'response', id: 'r1', ok: true, result: { mime: 'image/png' } };
    const frame = encodeBinaryFrame(header, payload);
    expect(frame.readUInt32BE(0)).toBe(Buffer.byteLength(JSON.stringify(header)));
    expect(decodeBinaryFrame(frame)).toEqual({ header, payload });
    expect(parseAgentMessage(frame, true)).toEqual({ type: 'response', id: 'r1', ok: true, result: { mime: 'image/png' }, payload: [payload] });
  });

  it('reads a binary message from its fragments however they are cut, without joining the payload', () => {
    const payload = Buffer.from(Array.from({ length: 300 }, (_, i) => i % 256));
    const header = { type: 'response', id: 'r2', ok: true, result: { mime: 'image/png' } };
    const whole = encodeBinaryFrame(header, payload);
    for (const cuts of [[1], [3, 4, 5], [4], [10, 50], [whole.length - payload.length], [whole.length - payload.length + 7, 200]]) {
      const ends = [...cuts, whole.length];
      const fragments = ends.map((end, i) => whole.subarray(i ? ends[i - 1] : 0, end));
      const frame = decodeBinaryFragments(fragments)!;
      expect(frame.header).toEqual(header);
      expect(Buffer.concat(frame.payload)).toEqual(payload);
      expect(frame.payload.every((chunk) => chunk.length > 0)).toBe(true);
      expect(parseAgentMessage(fragments, true)).toMatchObject({ type: 'response', id: 'r2', ok: true });
    }
    // A payload fragment that arrives whole is handed on as that very buffer: no copy.
    const image = Buffer.from('png bytes');
    const prefixOnly = encodeBinaryFrame(header, Buffer.alloc(0));
    expect(decodeBinaryFragments([prefixOnly, image])!.payload[0]).toBe(image);
  });

  it('sends a binary response as fragments of one message that decode to the same bytes', () => {
    const sent: Array<{ data: Buffer; fin: boolean }> = [];
    const sink = { send: (data: Buffer, options: { fin: boolean }) => sent.push({ data, fin: options.fin }) };
    const header = { type: 'response', id: 'r3', ok: true, result: { mime: 'image/png' } };
    const chunks = [Buffer.from('ab'), Buffer.alloc(0), Buffer.from('cdef')];
    sendBinaryFrame(sink, header, chunks);
    expect(sent.map((s) => s.fin)).toEqual([false, false, true]);
    expect(sent[1].data).toBe(chunks[0]);
    expect(Buffer.concat(sent.map((s) => s.data))).toEqual(encodeBinaryFrame(header, Buffer.from('abcdef')));
    sent.length = 0;
    sendBinaryFrame(sink, header, []);
    expect(sent).toHaveLength(1);
    expect(sent[0].fin).toBe(true);
  });

  it('rejects truncated or lying binary frames', () => {
    expect(parseAgentMessage(Buffer.from([0, 0]), true)).toBeNull();
    expect(parseAgentMessage(Buffer.from([0, 0, 0, 50, 123]), true)).toBeNull();
    expect(parseAgentMessage([Buffer.from([0, 0]), Buffer.from([0, 50]), Buffer.from('{}')], true)).toBeNull();
    expect(parseAgentMessage(encodeBinaryFrame({ type: 'response', id: 'x', ok: false }, Buffer.from('a')), true)).toBeNull();
  });

  it('validates text messages and treats unknown types as harmless', () => {
    expect(text('{nope')).toBeNull();
    expect(text({ type: 'resources', cpu_percent: 101, mem_percent: 1 })).toBeNull();
    expect(text({ type: 'resources', cpu_percent: 12.5, mem_percent: 61 })).toEqual({ type: 'resources', cpuPercent: 12.5, memPercent: 61 });
    expect(text({ type: 'devices', devices: [{ sessionId: 'a', state: 'running' }] })).toBeNull();
    expect(text({ type: 'future-thing', anything: 1 })).toEqual({ type: 'unknown' });
    expect(text({ type: 'response', id: 'e', ok: false, error: { code: 'not_booted', message: 'm' } })).toEqual({
      type: 'response',
      id: 'e',
      ok: false,
      error: { code: 'not_booted', message: 'm' },
    });
  });

  it('accepts client requests with a string or integer id only', () => {
    const client = (v: unknown) => parseClientRequest(Buffer.from(JSON.stringify(v)), false);
    expect(client({ type: 'request', id: 'c1', method: 'tap', params: { x: 0.5 } })).toEqual({ id: 'c1', method: 'tap', params: { x: 0.5 } });
    expect(client({ type: 'request', id: 3, method: 'tap' })).toEqual({ id: 3, method: 'tap', params: {} });
    expect(client({ type: 'request', id: {}, method: 'tap' })).toBeNull();
    expect(client({ type: 'request', id: 'x', method: 'tap', params: [1] })).toBeNull();
  });
});

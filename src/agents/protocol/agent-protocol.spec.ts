import { decodeBinaryFrame, encodeBinaryFrame, parseAgentMessage, parseClientRequest } from './agent-protocol';

const text = (value: unknown) => parseAgentMessage(Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)), false);

describe('agent protocol codec', () => {
  it('round-trips the binary response framing byte for byte', () => {
    const payload = Buffer.from([0, 255, 1, 254, 0x89, 0x50]);
    const header = { type: 'response', id: 'r1', ok: true, result: { mime: 'image/png' } };
    const frame = encodeBinaryFrame(header, payload);
    expect(frame.readUInt32BE(0)).toBe(Buffer.byteLength(JSON.stringify(header)));
    expect(decodeBinaryFrame(frame)).toEqual({ header, payload });
    expect(parseAgentMessage(frame, true)).toEqual({ type: 'response', id: 'r1', ok: true, result: { mime: 'image/png' }, payload });
  });

  it('rejects truncated or lying binary frames', () => {
    expect(parseAgentMessage(Buffer.from([0, 0]), true)).toBeNull();
    expect(parseAgentMessage(Buffer.from([0, 0, 0, 50, 123]), true)).toBeNull();
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

import { failingCommand, placeOnTimeline, timelineCommand } from './command-timeline';

const ID = 'abc-123';
const ELEMENT = { 'element-6066-11e4-a52e-4f735466cecf': 'el-1' };
const command = (method: 'GET' | 'POST' | 'DELETE', path: string, body: unknown, answer: { status: number; body: unknown } | null, failure = null) =>
  timelineCommand(ID, { method, path: `/session/${ID}${path}`, body, at: 1000, durationMs: 7, answer, failure });

describe('the command timeline of a hub session', () => {
  it('names a find with its locator and the element it found', () => {
    expect(command('POST', '/element', { using: 'accessibility id', value: 'username' }, { status: 200, body: { value: ELEMENT } })).toEqual({
      at: 1000,
      method: 'POST',
      path: '/element',
      command: 'findElement',
      elementId: 'el-1',
      locator: { using: 'accessibility id', value: 'username' },
      durationMs: 7,
      status: 200,
      error: null,
    });
  });

  it('keeps a failed find’s W3C error, and never the typed text', () => {
    const missing = command('POST', '/element', { using: 'id', value: 'nope' }, { status: 404, body: { value: { error: 'no such element', message: 'not found', stacktrace: 'long' } } });
    expect(missing).toEqual(expect.objectContaining({ elementId: null, status: 404, error: { error: 'no such element', message: 'not found' } }));
    const typed = command('POST', '/element/el-1/value', { text: 'secret', value: ['s'] }, { status: 200, body: { value: null } });
    expect(typed).toEqual(expect.objectContaining({ command: 'elementSendKeys', elementId: 'el-1', locator: null }));
    expect(JSON.stringify(typed)).not.toContain('secret');
  });

  it('names element commands, named scripts and the session’s end; leaves vendor commands unnamed', () => {
    expect(command('GET', '/element/el-1/attribute/clicks', undefined, { status: 200, body: { value: '1' } }).command).toBe('getElementAttribute');
    expect(command('POST', '/execute/sync', { script: 'mobile: scroll', args: [] }, { status: 200, body: { value: null } }).command).toBe('executeScript mobile: scroll');
    expect(command('POST', '/execute/sync', { script: 'return document.title', args: [] }, { status: 200, body: { value: null } }).command).toBe('executeScript');
    expect(command('DELETE', '', undefined, { status: 200, body: { value: null } })).toEqual(expect.objectContaining({ command: 'deleteSession', path: '' }));
    expect(command('POST', '/appium/device/shake', {}, { status: 200, body: { value: null } }).command).toBeNull();
  });

  it('records a failure of the hub itself (agent offline) with its W3C code', () => {
    const failed = timelineCommand(ID, { method: 'GET', path: `/session/${ID}/source`, body: undefined, at: 5, durationMs: 1, answer: null, failure: { code: 'unknown error', message: 'The device’s agent went offline', status: 502 } });
    expect(failed).toEqual(expect.objectContaining({ command: 'getPageSource', status: 502, error: { error: 'unknown error', message: 'The device’s agent went offline' } }));
  });

  it('places commands on the recording: ms after its first frame, a command before it at 0', () => {
    const at = (n: number) => ({ ...command('GET', '/source', undefined, { status: 200, body: {} }), at: n });
    expect(placeOnTimeline([at(900), at(1500)], 1000).map((c) => c.at)).toEqual([0, 500]);
  });

  it('points a failure at the last command that answered an error, else at the last step before the end', () => {
    const at = (c: ReturnType<typeof command>, ms: number) => ({ ...c, at: ms });
    const found = at(command('POST', '/element', { using: 'id', value: 'a' }, { status: 200, body: { value: ELEMENT } }), 100);
    const missing = at(command('POST', '/element', { using: 'id', value: 'b' }, { status: 404, body: { value: { error: 'no such element', message: '' } } }), 200);
    const clicked = at(command('POST', '/element/el-1/click', {}, { status: 200, body: { value: null } }), 300);
    const marked = at(command('POST', '/execute/sync', { script: 'svc:status', args: [] }, { status: 200, body: { value: null } }), 400);
    const deleted = at(command('DELETE', '', undefined, { status: 200, body: { value: null } }), 500);
    expect(failingCommand([found, missing, clicked, marked, deleted])?.at).toBe(200);
    expect(failingCommand([found, clicked, marked, deleted])?.at).toBe(300);
    expect(failingCommand([deleted])).toBeNull();
  });
});

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { callQuickly, quickFileCalls, SLOW_CALL_MS } from './quick-file-calls';

/** Holds the thread for longer than a slow call (a stalled disk, as the guard sees one). */
const stall = (): string => {
  const until = performance.now() + SLOW_CALL_MS + 5;
  while (performance.now() < until);
  return 'stalled';
};

describe('quick file calls', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'svc-quick-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('open, read, close and rename a file, with errors as the asynchronous calls give them', async () => {
    const from = join(dir, 'a');
    writeFileSync(from, 'hello quick');
    const fd = await quickFileCalls.open(from, 'r');
    const bytes = Buffer.alloc(5);
    expect(await quickFileCalls.read(fd, bytes, 0, 5, 6)).toBe(5);
    expect(bytes.toString()).toBe('quick');
    await quickFileCalls.close(fd);
    await quickFileCalls.rename(from, join(dir, 'b'));
    expect(readFileSync(join(dir, 'b'), 'utf8')).toBe('hello quick');
    await expect(quickFileCalls.open(join(dir, 'missing'), 'r')).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(quickFileCalls.open(join(dir, 'b'), 'wx')).rejects.toMatchObject({ code: 'EEXIST' });
  });

  it('one slow call is forgiven; two in a row send the calls to the thread pool', async () => {
    const pooled = jest.fn(() => Promise.resolve('pooled'));
    await callQuickly(stall, pooled);
    expect(quickFileCalls.pooled()).toBe(false);
    await callQuickly(() => 'fast', pooled);
    await callQuickly(stall, pooled);
    expect(quickFileCalls.pooled()).toBe(false);
    await callQuickly(stall, pooled);
    expect(quickFileCalls.pooled()).toBe(true);
    expect(await callQuickly(() => 'quick', pooled)).toBe('pooled');
    expect(pooled).toHaveBeenCalledTimes(1);
  });
});

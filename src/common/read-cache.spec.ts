import { ReadCache } from './read-cache';

describe('ReadCache', () => {
  let now = 0;
  let loads = 0;
  let rows = ['a'];
  const cache = () =>
    new ReadCache(
      async () => {
        loads++;
        return [...rows];
      },
      1_000,
      () => now,
    );
  beforeEach(() => {
    now = 0;
    loads = 0;
    rows = ['a'];
  });

  it('reads once within its lifetime, again after it', async () => {
    const c = cache();
    expect(await c.get()).toEqual(['a']);
    rows = ['b'];
    expect(await c.get()).toEqual(['a']);
    expect(loads).toBe(1);
    now = 1_000;
    expect(await c.get()).toEqual(['b']);
    expect(loads).toBe(2);
  });

  it('reads again once cleared', async () => {
    const c = cache();
    await c.get();
    rows = ['b'];
    c.clear();
    expect(await c.get()).toEqual(['b']);
    expect(loads).toBe(2);
  });

  it('does not keep a read that was under way when it was cleared', async () => {
    let release = () => {};
    const c = new ReadCache(async () => {
      loads++;
      const seen = [...rows];
      await new Promise<void>((resolve) => (release = resolve));
      return seen;
    });
    const stale = c.get();
    rows = ['b'];
    c.clear();
    release();
    expect(await stale).toEqual(['a']);
    const fresh = c.get();
    release();
    expect(await fresh).toEqual(['b']);
    expect(loads).toBe(2);
  });
});

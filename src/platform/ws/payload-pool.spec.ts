import { PayloadPool } from './payload-pool';

describe('PayloadPool', () => {
  it('hands out buffers of exactly the asked length and pools only payloads from its threshold up', () => {
    const pool = new PayloadPool(1000);
    expect(pool.pools(999)).toBe(false);
    expect(pool.pools(1000)).toBe(true);
    expect(pool.acquire(1000).length).toBe(1000);
    expect(pool.acquire(1_048_577).length).toBe(1_048_577);
  });

  it('hands a released buffer out again for a payload of its size class, and never to two owners', () => {
    const pool = new PayloadPool(1000);
    const a = pool.acquire(1500);
    pool.release([a.subarray(10), a]); // a view of it and itself: handed back once
    expect(pool.kept).toBe(2048);
    const b = pool.acquire(2000);
    expect(b.buffer).toBe(a.buffer);
    expect(pool.kept).toBe(0);
    const c = pool.acquire(1500);
    expect(c.buffer).not.toBe(a.buffer);
    pool.release([b]);
    pool.release([b]);
    expect(pool.kept).toBe(2048);
    expect(pool.acquire(1100).buffer).toBe(a.buffer);
    expect(pool.acquire(1100).buffer).not.toBe(a.buffer);
  });

  it('ignores buffers it did not hand out and keeps at most its byte budget', () => {
    const pool = new PayloadPool(1000, 4096);
    pool.release([Buffer.alloc(2048), Buffer.allocUnsafeSlow(4096)]);
    expect(pool.kept).toBe(0);
    const held = [pool.acquire(2048), pool.acquire(2048), pool.acquire(2048)];
    pool.release(held);
    expect(pool.kept).toBe(4096);
    expect(new Set([pool.acquire(2048).buffer, pool.acquire(2048).buffer, pool.acquire(2048).buffer]).size).toBe(3);
  });
});

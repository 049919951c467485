import { CredentialCache } from './credential-cache';

interface Held {
  userId: number;
  id: number;
}

class TestCache extends CredentialCache<Held> {
  protected ownerOf(value: Held) {
    return { userId: value.userId, credentialId: value.id };
  }
}

describe('CredentialCache', () => {
  let now = 0;
  const cache = (ttl = 1_000, max = 2) => new TestCache(ttl, max, () => now);
  const reads: string[] = [];
  const find = (value: Held | null) => async (hash: string) => {
    reads.push(hash);
    return value;
  };
  beforeEach(() => {
    now = 0;
    reads.length = 0;
  });

  it('reads once within its lifetime, again after it; a miss is not kept', async () => {
    const c = cache();
    await c.lookUp('a', find({ userId: 1, id: 10 }));
    await c.lookUp('a', find(null));
    expect(reads).toEqual(['a']);
    now = 1_000;
    expect(await c.lookUp('a', find(null))).toBeNull();
    await c.lookUp('a', find(null));
    expect(reads).toEqual(['a', 'a', 'a']);
  });

  it('answers a held lookup at once, a read one as a promise', async () => {
    const c = cache();
    const first = c.lookUp('a', find({ userId: 1, id: 10 }));
    expect(first).toBeInstanceOf(Promise);
    await first;
    expect(c.lookUp('a', find(null))).toEqual({ userId: 1, id: 10 });
    now = 1_000;
    expect(c.lookUp('a', find(null))).toBeInstanceOf(Promise);
  });

  it('keeps at most its size, the least recently used going first', async () => {
    const c = cache();
    await c.lookUp('a', find({ userId: 1, id: 1 }));
    await c.lookUp('b', find({ userId: 1, id: 2 }));
    await c.lookUp('a', find(null));
    await c.lookUp('c', find({ userId: 1, id: 3 }));
    reads.length = 0;
    await c.lookUp('a', find(null));
    await c.lookUp('b', find(null));
    expect(reads).toEqual(['b']);
  });

  it('forgets by member and by credential, and keeps no lookup that was under way while it forgot', async () => {
    const c = cache(1_000, 10);
    await c.lookUp('a', find({ userId: 1, id: 1 }));
    await c.lookUp('b', find({ userId: 2, id: 2 }));
    c.clearMembers([1]);
    c.clearCredentials([2]);
    reads.length = 0;
    let release!: () => void;
    const slow = c.lookUp('c', () => new Promise<Held>((resolve) => (release = () => resolve({ userId: 3, id: 3 }))));
    c.clearMembers([99]);
    release();
    await slow;
    await c.lookUp('a', find(null));
    await c.lookUp('b', find(null));
    await c.lookUp('c', find(null));
    expect(reads).toEqual(['a', 'b', 'c']);
  });
});

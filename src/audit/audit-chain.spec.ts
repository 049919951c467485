import { canonicalEntry, ChainWalker, entryHash, GENESIS_HASH, type StoredChainEntry } from './audit-chain';

function chain(n: number): StoredChainEntry[] {
  const entries: StoredChainEntry[] = [];
  let prevHash = GENESIS_HASH;
  for (let i = 1; i <= n; i++) {
    const fields = {
      at: new Date(1_700_000_000_000 + i),
      actorId: i,
      actorLabel: `m${i}@example.com`,
      via: 'cookie',
      action: 'test.entry',
      target: `build:${i}`,
      clientAddress: '127.0.0.1',
      details: { b: i, a: 'x' },
      prevHash,
    };
    const hash = entryHash(fields);
    entries.push({ ...fields, id: i, hash });
    prevHash = hash;
  }
  return entries;
}

function walk(entries: StoredChainEntry[], anchor: string | null, head: string | null) {
  const walker = new ChainWalker(anchor);
  for (const entry of entries) {
    const broken = walker.next(entry);
    if (broken) return broken;
  }
  return walker.lastHash === head ? null : { id: null, reason: 'newest' };
}

describe('audit chain', () => {
  it('serialises in a fixed order with sorted details keys, whatever order they were given in', () => {
    const [entry] = chain(1);
    expect(canonicalEntry({ ...entry, details: { a: 'x', b: 1 } })).toBe(canonicalEntry({ ...entry, details: { b: 1, a: 'x' } }));
    expect(canonicalEntry(entry)).toBe(
      `[1,1700000000001,1,"m1@example.com","cookie","test.entry","build:1","127.0.0.1",{"a":"x","b":1},"${GENESIS_HASH}"]`,
    );
  });

  it('verifies a whole chain and names the first edited, deleted or truncated entry', () => {
    const entries = chain(5);
    expect(walk(entries, null, entries[4].hash)).toBeNull();
    expect(walk(entries.map((e) => (e.id === 3 ? { ...e, actorLabel: 'other' } : e)), null, entries[4].hash)).toMatchObject({ id: 3 });
    expect(walk(entries.filter((e) => e.id !== 2), null, entries[4].hash)).toMatchObject({ id: 3 });
    expect(walk(entries.slice(0, 4), null, entries[4].hash)).toMatchObject({ reason: 'newest' });
    // After a prune, the kept part starts at the anchor.
    expect(walk(entries.slice(2), entries[1].hash, entries[4].hash)).toBeNull();
    expect(walk(entries.slice(2), GENESIS_HASH, entries[4].hash)).toMatchObject({ id: 3, reason: expect.stringContaining('anchor') });
  });
});

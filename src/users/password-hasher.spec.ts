import { promises as fs } from 'node:fs';
import { RelayConfig } from '../config/relay-config';
import * as bcrypt from 'bcrypt';
import { decoyHash, PasswordHasher } from './password-hasher';

const hasherWith = (bcryptCost: number, passwordWorkers = 1) => new PasswordHasher({ bcryptCost, passwordWorkers } as RelayConfig);

describe('PasswordHasher', () => {
  it('hashes and verifies, and the whole of a long password counts', async () => {
    const hasher = hasherWith(4);
    try {
      const long = 'x'.repeat(72) + 'tail';
      const hash = await hasher.hash(long);
      await expect(hasher.verify(long, hash)).resolves.toBe(true);
      await expect(hasher.verify('x'.repeat(72), hash)).resolves.toBe(false);
      await expect(hasher.verifyDecoy('anything')).resolves.toBe(false);
      await expect(hasher.verify('a', 'not a bcrypt hash')).resolves.toBe(false);
    } finally {
      await hasher.onModuleDestroy();
    }
  });

  // The decoy is written, not hashed: bcrypt must take it as a hash at the configured cost (its
  // work depends only on that), and it must differ each start and match no password.
  it('the decoy hash is a well-formed bcrypt hash at the configured cost, new each time', () => {
    const hashes = [4, 11, 12].map((cost) => decoyHash(cost));
    expect(hashes.map((hash) => bcrypt.getRounds(hash))).toEqual([4, 11, 12]);
    for (const hash of hashes) expect(hash).toMatch(/^\$2b\$\d\d\$[./A-Za-z0-9]{53}$/);
    expect(bcrypt.compareSync('anything', decoyHash(4))).toBe(false);
    expect(decoyHash(4)).not.toBe(decoyHash(4));
    expect(hasherWith(5).decoyHash).toMatch(/^\$2b\$05\$/);
  });

  // Issue 27: bcrypt's async calls took libuv's four threads, so a burst of sign-ins held up every
  // upload's open, write and fsync. With hashing on threads of its own, file I/O goes first. An
  // order, not a time: on the old hasher the stat finished only after a hash had.
  it('a burst of hashes does not hold up file I/O on libuv\'s thread pool', async () => {
    // Cost 14: a hash takes longer than the wait below (at 12 the first was done within it here).
    const hasher = hasherWith(14);
    try {
      const done: string[] = [];
      const hashes = Array.from({ length: 4 }, (_, i) => hasher.hash(`password ${i}`).then(() => done.push(`hash ${i}`)));
      await new Promise((resolve) => setTimeout(resolve, 300)); // the hashes are under way (bcrypt first makes a salt)
      await Promise.all(Array.from({ length: 8 }, () => fs.stat(__filename)));
      done.push('file I/O');
      expect(done[0]).toBe('file I/O');
      await Promise.all(hashes);
    } finally {
      await hasher.onModuleDestroy();
    }
  }, 60_000);

  it('stopping rejects what is queued and refuses more', async () => {
    const hasher = hasherWith(12);
    const queued = [hasher.hash('one'), hasher.hash('two')].map((p) => p.then(String, (e: Error) => e.message));
    await hasher.onModuleDestroy();
    // The one a worker held ends with the worker; the one still queued is refused.
    expect(await Promise.all(queued)).toEqual([expect.stringMatching(/password (hashing stopped|worker exited)/), 'password hashing stopped']);
    await expect(hasher.verify('x', '$2b$04$abcdefghijklmnopqrstuu')).rejects.toThrow('password hashing stopped');
  });
});

import type { Pool } from 'pg';

/**
 * How many connections `request` checks out of the PostgreSQL pool (pg's `acquire` event), counting
 * until `settle` resolves (work after the answer): the fewest over three tries, since a background job
 * (a sweep) may take a connection meanwhile. A first, uncounted try lets the request cache what it may
 * (the credential's lookup, the small tables).
 */
export async function fewestCheckouts(pool: Pool, request: () => Promise<unknown>, settle: () => Promise<unknown> = async () => {}): Promise<number> {
  await request();
  await settle();
  let fewest = Infinity;
  for (let i = 0; i < 3; i++) {
    let count = 0;
    const counted = () => count++;
    pool.on('acquire', counted);
    try {
      await request();
      await settle();
    } finally {
      pool.off('acquire', counted);
    }
    fewest = Math.min(fewest, count);
  }
  return fewest;
}

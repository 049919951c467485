import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A path for a svc.config.json in a temp folder (for SVC_CONFIG), known before its forges listen. */
export function forgeConfigPath(): string {
  return join(mkdtempSync(join(tmpdir(), 'svc-forges-')), 'svc.config.json');
}

/** Writes a svc.config.json holding only `forges` (before the relay that reads it starts). */
export function writeForgeConfig(path: string, forges: unknown[]): void {
  writeFileSync(path, JSON.stringify({ forges }));
}

/** Waits until `check` holds (polling every 50 ms), or fails naming what was waited for. */
export async function until<T>(what: string, check: () => T | undefined | null | false | Promise<T | undefined | null | false>, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export const SHA_A = '1'.repeat(40);
export const SHA_B = '2'.repeat(40);
export const SHA_C = '3'.repeat(40);

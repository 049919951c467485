import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RelayUnderTest, useTestRelay } from '../../support/use-relay';
import type { TestForge } from './forge-server';

/** A path for a svc.config.json in a temp folder (for SVC_CONFIG), known before its forges listen. */
export function forgeConfigPath(): string {
  return join(mkdtempSync(join(tmpdir(), 'svc-forges-')), 'svc.config.json');
}

/** Writes a svc.config.json holding only `forges` (before the relay that reads it starts). */
export function writeForgeConfig(path: string, forges: unknown[]): void {
  writeFileSync(path, JSON.stringify({ forges }));
}

/**
 * A relay for the enclosing describe block whose svc.config.json names one local GitHub (started
 * and stopped with the block) with `token`, serving acme/app, its public URL https://relay.example.test.
 */
export function useGitHubForgeRelay(forge: TestForge, token: string): RelayUnderTest {
  const config = forgeConfigPath();
  // Declared before useTestRelay: hooks run in order, so the file names the forge before the relay reads it.
  beforeAll(async () => {
    await forge.start();
    writeForgeConfig(config, [{ type: 'github', url: forge.url, tokenEnv: 'GH_TEST_TOKEN', repositories: ['acme/app'] }]);
  });
  afterAll(() => forge.close());
  return useTestRelay({ SVC_CONFIG: config, GH_TEST_TOKEN: token, SVC_RELAY_URL: 'https://relay.example.test' });
}

/**
 * Waits until `check` holds (polling every 50 ms), or fails naming what was waited for and, given
 * `explain`, what it says of the state then (what the forge saw, the relay's queue).
 */
export async function until<T>(
  what: string,
  check: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  ms = 10_000,
  explain?: () => unknown,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${explain ? `: ${JSON.stringify(await explain())}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export const SHA_A = '1'.repeat(40);
export const SHA_B = '2'.repeat(40);
export const SHA_C = '3'.repeat(40);

import { execFileSync } from 'node:child_process';
import { Client } from 'pg';

/** The servers the multi-instance and migration tests use; CI sets them like the PostgreSQL pass does. */
export const PG_ADMIN_URL = process.env.SVC_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const REDIS_URL = process.env.SVC_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

const DEFAULT_PORTS: Record<string, string> = { 'redis:': '6379', 'postgres:': '5432', 'postgresql:': '5432' };

/**
 * Null when every URL's host accepts a TCP connection, else the skip reason naming them. Synchronous
 * (a child process), because jest declares suites synchronously and a skip must be decided then.
 */
export function unreachable(urls: string[]): string | null {
  const targets = urls.map((u) => new URL(u)).map((u) => [u.hostname, Number(u.port || DEFAULT_PORTS[u.protocol])]);
  const probe = `
    const net = require('node:net');
    Promise.all(${JSON.stringify(targets)}.map(([host, port]) => new Promise((ok, fail) => {
      const s = net.connect(port, host, () => { s.end(); ok(); });
      s.setTimeout(2000, () => { s.destroy(); fail(new Error('timeout')); });
      s.on('error', fail);
    }))).then(() => process.exit(0), () => process.exit(1));`;
  try {
    execFileSync(process.execPath, ['-e', probe], { stdio: 'ignore', timeout: 10_000 });
    return null;
  } catch {
    return `not reachable: ${urls.map((u) => new URL(u).host).join(', ')} (PostgreSQL / Redis for these tests)`;
  }
}

/** Runs `body` with a client on the PostgreSQL admin URL (creating and dropping test databases). */
export async function withPgAdmin(body: (client: Client) => Promise<unknown>, url = PG_ADMIN_URL): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await body(client);
  } finally {
    await client.end();
  }
}

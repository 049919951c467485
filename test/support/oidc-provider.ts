import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';

export interface TestOidcProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The account the next sign-in is (the provider's scripted login). */
  loginAs(account: string): Promise<void>;
  close(): Promise<void>;
}

/** A free loopback port: the relay's config must name the issuer before the provider (which needs the relay's redirect URI) starts. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

export const TEST_PROVIDER_SECRET = 'provider-test-secret-0123456789';

/** `sso.oidc` for a relay in front of the provider on `port`, with the default scopes (none configured) and the secret in TEST_OIDC_SECRET. */
export function corpIdpConfig(port: number): Record<string, unknown> {
  return {
    issuer: `http://127.0.0.1:${port}`,
    clientId: 'svc-relay',
    clientSecretEnv: 'TEST_OIDC_SECRET',
    name: 'Corp IdP',
    roles: { Admin: ['relay-admins'], Developer: ['mobile-devs'] },
  };
}

/** Starts test/support/oidc-provider.mjs (the certified `oidc-provider`) on `port`, with these accounts. */
export async function startOidcProvider(options: {
  port: number;
  relayUrl: string;
  accounts: Record<string, Record<string, unknown>>;
  /** The scope that releases the `groups` claim (advertised in scopes_supported); null: never released. Default "groups". */
  groupsScope?: string | null;
}): Promise<TestOidcProvider> {
  const clientId = 'svc-relay';
  const clientSecret = TEST_PROVIDER_SECRET;
  const child: ChildProcess = spawn(process.execPath, [join(__dirname, 'oidc-provider.mjs')], {
    env: {
      ...process.env,
      OIDC_TEST_CONFIG: JSON.stringify({
        port: options.port,
        clientId,
        clientSecret,
        redirectUri: `${options.relayUrl}/api/v1/auth/oidc/callback`,
        postLogoutRedirectUri: `${options.relayUrl}/signin`,
        accounts: options.accounts,
        groupsScope: options.groupsScope,
      }),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let errors = '';
  child.stderr!.on('data', (chunk) => (errors += chunk));
  const issuer = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`oidc-provider did not start within 20 s: ${errors}`)), 20_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      const ready = /READY (\S+)/.exec(chunk.toString());
      if (ready) {
        clearTimeout(timer);
        resolve(ready[1]);
      }
    });
    child.once('exit', (code) => reject(new Error(`oidc-provider exited (${code}): ${errors}`)));
  });
  return {
    issuer,
    clientId,
    clientSecret,
    loginAs: async (account) => {
      const res = await fetch(`${issuer}/test/login-as?account=${encodeURIComponent(account)}`);
      if (res.status !== 204) throw new Error(`login-as answered ${res.status}`);
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

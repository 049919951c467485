import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'ldapts';
import { freePort } from './oidc-provider';

export const SLAPD_PATH = process.env.SVC_SLAPD ?? '/usr/sbin/slapd';
export const SUFFIX = 'dc=example,dc=org';
export const ROOT_DN = `cn=admin,${SUFFIX}`;
export const ROOT_PASSWORD = 'directory-admin-secret';

/** Why the LDAP tests cannot run here, or null (`.ci/run` installs slapd and ldap-utils). */
export function slapdSkipReason(): string | null {
  if (!existsSync(SLAPD_PATH)) return `no OpenLDAP server at ${SLAPD_PATH} (apt-get install slapd ldap-utils, or set SVC_SLAPD)`;
  if (!existsSync('/etc/ldap/schema/inetorgperson.schema')) return 'no OpenLDAP schema files in /etc/ldap/schema (apt-get install slapd)';
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
  } catch {
    return 'no openssl command to make the directory a TLS certificate (apt-get install openssl)';
  }
  return null;
}

export interface TestDirectory {
  url: string;
  ldapsUrl: string;
  /** The PEM of the CA (a self-signed certificate for 127.0.0.1) the directory's TLS uses. */
  caFile: string;
  /** Adds an entry as the directory's admin (the memberOf overlay fills users' memberOf from groups added this way). */
  add(dn: string, attributes: Record<string, string | string[]>): Promise<void>;
  close(): Promise<void>;
}

/**
 * Debian's OpenLDAP server on loopback, started like PostgreSQL is for the database tests: a
 * temporary slapd.conf (core, cosine, inetorgperson schemas; an mdb database; the memberOf
 * overlay, as Active Directory keeps memberOf on users), ldap:// with StartTLS and ldaps://,
 * a certificate for 127.0.0.1 made with openssl. Stopped and removed by close().
 */
export async function startDirectory(): Promise<TestDirectory> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-slapd-'));
  mkdirSync(join(dir, 'db'));
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  writeFileSync(
    join(dir, 'slapd.conf'),
    [
      'include /etc/ldap/schema/core.schema',
      'include /etc/ldap/schema/cosine.schema',
      'include /etc/ldap/schema/inetorgperson.schema',
      'modulepath /usr/lib/ldap',
      'moduleload back_mdb',
      'moduleload memberof',
      `pidfile ${join(dir, 'slapd.pid')}`,
      `TLSCertificateFile ${cert}`,
      `TLSCertificateKeyFile ${key}`,
      'database mdb',
      'maxsize 10485760',
      `suffix "${SUFFIX}"`,
      `rootdn "${ROOT_DN}"`,
      `rootpw ${ROOT_PASSWORD}`,
      `directory ${join(dir, 'db')}`,
      'overlay memberof',
      'access to attrs=userPassword by self write by anonymous auth by * none',
      'access to * by * read',
      '',
    ].join('\n'),
  );
  const port = await freePort();
  const tlsPort = await freePort();
  const url = `ldap://127.0.0.1:${port}`;
  const ldapsUrl = `ldaps://127.0.0.1:${tlsPort}`;
  const child: ChildProcess = spawn(SLAPD_PATH, ['-d', '0', '-f', join(dir, 'slapd.conf'), '-h', `${url}/ ${ldapsUrl}/`], { stdio: ['ignore', 'ignore', 'pipe'] });
  let errors = '';
  child.stderr!.on('data', (chunk) => (errors += chunk));
  const admin = async <T>(body: (client: Client) => Promise<T>): Promise<T> => {
    const client = new Client({ url, timeout: 5000, connectTimeout: 5000 });
    try {
      await client.bind(ROOT_DN, ROOT_PASSWORD);
      return await body(client);
    } finally {
      await client.unbind().catch(() => undefined);
    }
  };
  const deadline = Date.now() + 15_000;
  for (;;) {
    try {
      await admin((client) => client.add(SUFFIX, { objectClass: ['dcObject', 'organization'], dc: 'example', o: 'Example' }));
      break;
    } catch (err) {
      if (child.exitCode !== null || Date.now() > deadline) {
        child.kill('SIGKILL');
        rmSync(dir, { recursive: true, force: true });
        throw new Error(`slapd did not start: ${(err as Error).message} ${errors}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return {
    url,
    ldapsUrl,
    caFile: cert,
    add: (dn, attributes) => admin((client) => client.add(dn, attributes)),
    close: async () => {
      if (child.exitCode === null) {
        await new Promise<void>((resolve) => {
          child.once('exit', () => resolve());
          child.kill('SIGTERM');
        });
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

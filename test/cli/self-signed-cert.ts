import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { emptyDir } from './cli-process';

/** A self-signed certificate for localhost/127.0.0.1 made by openssl for the test (EC: fast to generate). */
export function selfSignedCert(): { cert: string; key: string; dir: string } {
  const dir = emptyDir('svc-tls-');
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
      '-keyout', key, '-out', cert, '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'],
    { stdio: 'ignore' },
  );
  return { cert, key, dir };
}

import { get as httpGet } from 'node:http';
import { get as httpsGet } from 'node:https';
import { liveRelayPresence } from '../../bootstrap/relay-presence';
import type { RelayConfig } from '../../config/relay-config';
import { CliError } from '../../relay-client/client-errors';

const PROBE_TIMEOUT_MS = 1500;

/**
 * The trap this prevents: a relay started with one SVC_DATA_DIR, `svc admin init` run with
 * another (or none, so ./data), the Admin created where no relay reads it, and sign-in failing.
 * A relay names itself in its data folder (relay.json, src/bootstrap/relay-presence.ts); when the
 * target folder has no live relay but a relay answers on the configured port, that relay runs on
 * another folder, and the command stops before writing anything. No relay anywhere is fine: the
 * command works on a stopped relay's folder. PostgreSQL keeps accounts in SVC_DATABASE_URL, not
 * in the folder, so there is nothing to compare.
 */
export async function refuseOtherRelaysDataFolder(config: RelayConfig): Promise<void> {
  if (config.database.type !== 'sqlite' || liveRelayPresence(config.dataDir)) return;
  const url = relayProbeUrl(config);
  if (!(await answersAsRelay(`${url}/api/v1/health`))) return;
  throw new CliError(
    `A relay is running at ${url}, but not on the data folder ${config.dataDir}: an Admin created here could not sign in to it. ` +
      'Run the command with the data folder the relay was started with (--data-dir, or the same SVC_DATA_DIR / svc.config.json), ' +
      'or stop that relay first if this folder is the one you mean.',
  );
}

/** Where this machine reaches a relay configured like this one (a wildcard host is reached on loopback). */
function relayProbeUrl(config: RelayConfig): string {
  const host = ['0.0.0.0', '::', ''].includes(config.host) ? '127.0.0.1' : config.host.includes(':') ? `[${config.host}]` : config.host;
  return `${config.tlsCert ? 'https' : 'http'}://${host}:${config.port}`;
}

/** A svc relay answers GET /api/v1/health with `{ status, version, uptimeSeconds }`; anything else is not one. */
function answersAsRelay(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const get = url.startsWith('https:') ? httpsGet : httpGet;
    // A self-signed certificate is normal on a relay host; only the answer's shape matters here.
    const req = get(url, { timeout: PROBE_TIMEOUT_MS, rejectUnauthorized: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
        if (body.length > 4096) req.destroy();
      });
      res.on('end', () => {
        try {
          const parsed = JSON.parse(body);
          resolve(typeof parsed?.version === 'string' && 'uptimeSeconds' in parsed);
        } catch {
          resolve(false);
        }
      });
      res.on('error', () => resolve(false));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
  });
}

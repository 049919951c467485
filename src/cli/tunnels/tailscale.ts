import { execFile } from 'node:child_process';
import { findExecutable } from './find-executable';

/**
 * This machine's Tailscale MagicDNS name when Tailscale is installed and connected, as a URL for
 * the relay's port (https when the relay serves TLS). Teammates on the same tailnet can open it.
 * Null when Tailscale is absent, stopped, or answers with something unexpected.
 */
export async function tailscaleUrl(port: number, servesHttps: boolean): Promise<string | null> {
  const executable = findExecutable('tailscale');
  if (!executable) return null;
  const output = await new Promise<string | null>((resolve) => {
    execFile(executable, ['status', '--json'], { timeout: 5000, maxBuffer: 8 * 1024 * 1024 }, (err, stdout) =>
      resolve(err ? null : stdout),
    );
  });
  if (!output) return null;
  try {
    const status = JSON.parse(output);
    const dnsName = typeof status?.Self?.DNSName === 'string' ? status.Self.DNSName.replace(/\.$/, '') : '';
    if (status?.BackendState !== 'Running' || !dnsName || status?.Self?.Online === false) return null;
    return `${servesHttps ? 'https' : 'http'}://${dnsName}:${port}`;
  } catch {
    return null;
  }
}

import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { emptyDir } from './cli-process';

/**
 * Stand-ins for cloudflared, ngrok and tailscale: small executables put first on PATH that print
 * what the real programs print (the quick-tunnel banner, ngrok's JSON log, `tailscale status --json`)
 * and record their arguments, so `svc relay --tunnel` is exercised end to end without a network.
 */
export const FAKE_CLOUDFLARE_URL = 'https://gentle-fox-river-lamp.trycloudflare.com';
export const FAKE_NGROK_URL = 'https://1a2b-203-0-113-7.ngrok-free.app';
export const FAKE_TAILSCALE_NAME = 'relay-box.tail1234.ts.net';

const NODE = `#!${process.execPath}`;
const RECORD_ARGS = `require('fs').writeFileSync(require('path').join(__dirname, require('path').basename(__filename) + '.args'), JSON.stringify(process.argv.slice(2)));`;
const STAY_UP = `process.on('SIGTERM', () => process.exit(0)); setInterval(() => {}, 1000);`;

const SCRIPTS = {
  cloudflared: `${NODE}
${RECORD_ARGS}
const log = (l) => process.stderr.write('2025-01-31T10:00:00Z INF ' + l + '\\n');
log('Thank you for trying Cloudflare Tunnel. Doing so, without a Cloudflare account, is a quick way to experiment.');
log('Requesting new quick Tunnel on trycloudflare.com...');
log('+--------------------------------------------------------------------------------------------+');
log('|  Your quick Tunnel has been created! Visit it at (it may take some time to be reachable):  |');
log('|  ${FAKE_CLOUDFLARE_URL}                                           |');
log('+--------------------------------------------------------------------------------------------+');
log('Registered tunnel connection connIndex=0 location=ams01 protocol=quic');
${STAY_UP}
`,
  ngrok: `${NODE}
${RECORD_ARGS}
const url = process.env.FAKE_NGROK_URL || '${FAKE_NGROK_URL}';
const log = (o) => process.stdout.write(JSON.stringify({ t: '2025-01-31T10:00:00Z', lvl: 'info', ...o }) + '\\n');
log({ msg: 'open config file', path: '/home/me/.config/ngrok/ngrok.yml', err: null });
log({ msg: 'starting web service', obj: 'web', addr: '127.0.0.1:4040', allow_hosts: [] });
log({ msg: 'client session established', obj: 'tunnels.session' });
log({ msg: 'started tunnel', obj: 'tunnels', name: 'command_line', addr: process.argv[3], url });
${STAY_UP}
`,
  'ngrok-no-authtoken': `${NODE}
process.stdout.write(JSON.stringify({ lvl: 'eror', msg: 'session closing', err: 'authentication failed: Usage of ngrok requires a verified account and authtoken.' }) + '\\n');
process.exit(1);
`,
  tailscale: `${NODE}
${RECORD_ARGS}
if (process.argv[2] !== 'status' || process.argv[3] !== '--json') process.exit(2);
const up = process.env.FAKE_TAILSCALE_STATE !== 'Stopped';
process.stdout.write(JSON.stringify({
  Version: '1.78.1',
  BackendState: up ? 'Running' : 'Stopped',
  TailscaleIPs: ['100.101.102.103'],
  Self: { ID: 'n1', HostName: 'relay-box', DNSName: '${FAKE_TAILSCALE_NAME}.', OS: 'linux', TailscaleIPs: ['100.101.102.103'], Online: up },
  MagicDNSSuffix: 'tail1234.ts.net',
  CurrentTailnet: { Name: 'me@example.com', MagicDNSSuffix: 'tail1234.ts.net', MagicDNSEnabled: true },
}, null, 2) + '\\n');
`,
} as const;

export type FakeTool = 'cloudflared' | 'ngrok' | 'tailscale' | 'ngrok-no-authtoken';

/** A folder holding the chosen fakes (installed under their real names), to put first on PATH. */
export function fakeToolsDir(tools: FakeTool[]): string {
  const dir = emptyDir('svc-fake-bin-');
  for (const tool of tools) {
    const file = join(dir, tool === 'ngrok-no-authtoken' ? 'ngrok' : tool);
    writeFileSync(file, SCRIPTS[tool]);
    chmodSync(file, 0o755);
  }
  return dir;
}

/** PATH with only the fakes and the folder of node itself: real tunnel programs can never be picked up. */
export function pathWith(dir: string): string {
  return [dir, '/usr/bin', '/bin'].join(':');
}

/**
 * The tunnel programs `svc relay --tunnel` can start, and how each one announces its public URL.
 * Both print it in their log output; we read stdout and stderr line by line until it appears.
 */
export interface TunnelProgram {
  name: 'cloudflared' | 'ngrok';
  /** Shown when the program is not on PATH. */
  installHint: string;
  args(localUrl: string): string[];
  /** The public URL announced on this output line, if any. */
  publicUrlFrom(line: string): string | null;
}

const cloudflared: TunnelProgram = {
  name: 'cloudflared',
  installHint:
    'Install cloudflared (https://developers.cloudflare.com/cloudflare-one/connections/connect-networks/downloads/, ' +
    'e.g. `brew install cloudflared` or the cloudflared .deb/.rpm) and run the command again.',
  // A quick tunnel; --no-tls-verify because the relay's own certificate is usually self-signed.
  args: (localUrl) => [
    'tunnel',
    '--no-autoupdate',
    '--url',
    localUrl,
    ...(localUrl.startsWith('https://') ? ['--no-tls-verify'] : []),
  ],
  // "|  https://some-words-here.trycloudflare.com    |" inside the banner cloudflared logs.
  publicUrlFrom: (line) => /https:\/\/[a-z0-9-]+\.trycloudflare\.com/i.exec(line)?.[0] ?? null,
};

const ngrok: TunnelProgram = {
  name: 'ngrok',
  installHint:
    'Install ngrok (https://ngrok.com/download, e.g. `brew install ngrok` or `snap install ngrok`), ' +
    'add your authtoken with `ngrok config add-authtoken <token>`, and run the command again.',
  args: (localUrl) => ['http', localUrl, '--log', 'stdout', '--log-format', 'json'],
  // {"lvl":"info","msg":"started tunnel","obj":"tunnels","name":"command_line","addr":"http://localhost:8080","url":"https://….ngrok-free.app"}
  publicUrlFrom: (line) => {
    try {
      const record = JSON.parse(line);
      return record?.msg === 'started tunnel' && typeof record.url === 'string' ? record.url : null;
    } catch {
      // logfmt (older ngrok or --log-format logfmt): … msg="started tunnel" … url=https://…
      return /msg="started tunnel".*\burl=(https?:\/\/\S+)/.exec(line)?.[1] ?? null;
    }
  },
};

export const TUNNEL_PROGRAMS = { cloudflared, ngrok } as const;
export type TunnelName = keyof typeof TUNNEL_PROGRAMS;

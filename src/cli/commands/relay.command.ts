import { Command, Option } from 'commander';
import { CliError } from '../../relay-client/client-errors';
import { parseNonNegativeInt } from '../client/client-options';
import { operatorConfig, OperatorOptions, withOperatorOptions } from '../operator-config';
import { findExecutable } from '../tunnels/find-executable';
import { tailscaleUrl } from '../tunnels/tailscale';
import { RunningTunnel, startTunnel } from '../tunnels/tunnel-process';
import { TUNNEL_PROGRAMS, TunnelName } from '../tunnels/tunnel-programs';

interface RelayOptions extends OperatorOptions {
  port?: number;
  host?: string;
  tunnel?: TunnelName | 'tailscale';
}

export function relayCommand(): Command {
  return withOperatorOptions(
    new Command('relay')
      .description('Start the relay (with an optional tunnel that gives it a public address)')
      .option('-p, --port <port>', 'TCP port (default: $SVC_PORT or 8080; 0 = any free port)', parseNonNegativeInt)
      .option('--host <address>', 'address to listen on (default: $SVC_HOST or 0.0.0.0)')
      .addOption(
        new Option('--tunnel <program>', 'start a tunnel and use its public URL in links').choices([
          'cloudflared',
          'ngrok',
          'tailscale',
        ]),
      ),
  )
    .addHelpText(
      'after',
      `
Without --tunnel the relay uses only the configured relay URL (SVC_RELAY_URL) in links. With
--tunnel cloudflared|ngrok it starts that program, reads the public URL it prints and uses it for
publicBaseUrl, agentRelayUrl, invitation and reset links. When Tailscale is installed and up, this
machine's MagicDNS name is a further candidate (used when the tunnel's address can't be, e.g. an
http:// address while the relay serves HTTPS); --tunnel tailscale uses only that name.

Examples:
  $ svc relay
  $ svc relay --port 9000 --data-dir /srv/svc
  $ svc relay --tunnel cloudflared
  $ SVC_TLS_CERT=cert.pem SVC_TLS_KEY=key.pem svc relay --tunnel ngrok`,
    )
    .action(async (options: RelayOptions) => {
      const config = operatorConfig(options, {
        SVC_PORT: options.port === undefined ? undefined : String(options.port),
        SVC_HOST: options.host,
      });
      const program = options.tunnel && options.tunnel !== 'tailscale' ? TUNNEL_PROGRAMS[options.tunnel] : null;
      const executable = program ? findExecutable(program.name) : null;
      if (program && !executable) throw new CliError(`${program.name} is not installed (not found on PATH). ${program.installHint}`);
      if (options.tunnel === 'tailscale' && !findExecutable('tailscale')) {
        throw new CliError('tailscale is not installed (not found on PATH). Install Tailscale (https://tailscale.com/download) and run `tailscale up`.');
      }

      const { startRelayProcess } = await import('../../bootstrap/start-relay');
      const { stopOnSignals } = await import('../../bootstrap/graceful-shutdown');
      const { JsonLogger } = await import('../../logging/json-logger');
      // One logger for every line from here on, in the configured format (SVC_LOG_FORMAT).
      const logger = new JsonLogger(config.logLevel, undefined, config.logFormat);
      const say = (line: string) => logger.announce(line);
      const app = await startRelayProcess(config, logger);
      const servesHttps = !!(config.tlsCert && config.tlsKey);
      const port = await (await import('../../bootstrap/ready-line')).announceStart(app, config, logger);
      const scheme = servesHttps ? 'https' : 'http';

      let tunnel: RunningTunnel | null = null;
      // Stop the tunnel first (so nobody reaches a closing relay), then the relay.
      const shutdown = stopOnSignals(app, config.limits.shutdownTimeoutMs, logger, () => tunnel?.stop());
      if (!options.tunnel) return;

      const { isUsableTunnelUrl } = await import('../../relay/public-url.service');
      const candidates: string[] = [];
      if (program && executable) {
        const localHost = ['0.0.0.0', '::', '127.0.0.1', 'localhost'].includes(config.host) ? '127.0.0.1' : config.host;
        try {
          tunnel = await startTunnel(program, executable, `${scheme}://${localHost}:${port}`);
        } catch (err) {
          await app.close();
          throw err;
        }
        say(`${program.name} tunnel: ${tunnel.publicUrl}`);
        candidates.push(tunnel.publicUrl);
      }
      const tailnet = await tailscaleUrl(port, servesHttps);
      if (tailnet) {
        say(`Tailscale address: ${tailnet}`);
        candidates.push(tailnet);
      } else if (options.tunnel === 'tailscale') {
        await app.close();
        throw new CliError('Tailscale is installed but not connected: run `tailscale up` and try again.');
      }
      const choose = () => candidates.find((url) => isUsableTunnelUrl(url, servesHttps)) ?? null;
      // PublicUrlService and the Origin rule read TunnelUrl on every call: links follow it from now on.
      const { TunnelUrl } = await import('../../config/tunnel-url');
      const tunnelUrl = app.get(TunnelUrl);
      tunnelUrl.set(choose());
      for (const url of candidates) {
        if (!isUsableTunnelUrl(url, servesHttps)) say(`Not using ${url}: the relay serves HTTPS, so an http:// address would downgrade links.`);
      }
      say(tunnelUrl.current() ? `Public URL: ${tunnelUrl.current()}` : 'No usable public URL; links fall back to SVC_RELAY_URL.');

      tunnel?.process.on('exit', (code, signal) => {
        if (shutdown.stopping) return;
        candidates.splice(candidates.indexOf(tunnel!.publicUrl), 1);
        tunnelUrl.set(choose());
        logger.warn(`${program!.name} stopped (${signal ?? `code ${code}`}); public URL is now ${tunnelUrl.current() ?? 'unset'}.`);
      });
    });
}

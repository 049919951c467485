import { Command, InvalidArgumentError } from 'commander';
import { hostname } from 'node:os';
import { AGENT_NAME_PATTERN } from '../agents/protocol/agent-protocol';
import { RELAY_VERSION } from '../relay/relay-version';
import { AgentDaemon } from './agent-daemon';
import { AppiumBridge } from './appium/appium-bridge';
import { startFakeAppium } from './appium/appium-server';
import { FakeAppModels } from './appium/fake-app-model';
import { DeviceCapabilityMapping } from './appium/webdriver-request';
import { selectBackend } from './backends/select-backend';

interface AgentOptions {
  relay: string;
  token?: string;
  name: string;
  fake: boolean;
  /** A URL (the host's Appium server), or true with --fake (start one with the fake driver). */
  appium?: string | true;
  /** With --fake: how many booted Android devices (parallel hub sessions). */
  fakeDevices: number;
}

/**
 * `svc agent --relay <url> --token <svc_pat_…> --name <name> [--fake]`: the reference agent.
 * The token may come from SVC_AGENT_TOKEN instead, which keeps it out of the process list.
 * Runs until SIGINT/SIGTERM (exit 0) or until the relay refuses it for good (exit 1).
 */
export function agentCommand(name = 'agent'): Command {
  return new Command(name)
    .description('Connect this machine’s simulators and emulators to a relay (the reference agent)')
    .requiredOption('--relay <url>', 'relay base URL, e.g. https://relay.example.com')
    .option('--token <token>', 'PAT with the agent scope, issued by an Admin (or set SVC_AGENT_TOKEN)')
    .option('--name <name>', 'agent name, 1-64 of [A-Za-z0-9._-]', defaultName())
    .option('--fake', 'serve deterministic fake devices instead of adb / simctl', false)
    .option('--fake-devices <n>', 'with --fake: booted Android devices to serve (1-64), for parallel hub sessions', fakeDeviceCount, 1)
    .option('--appium [url]', 'run hub sessions on this Appium server (e.g. http://127.0.0.1:4723); with --fake and no URL, start one with the fake driver')
    .addHelpText(
      'after',
      `
Backends: Android through adb and iOS simulators through xcrun simctl, whichever is installed;
--fake serves deterministic devices, screenshots and UI trees for tests and demos.

Examples:
  $ SVC_AGENT_TOKEN=svc_pat_… svc agent --relay https://relay.example.com --name mac-mini-3
  $ svc agent --relay https://relay.example.com --appium http://127.0.0.1:4723
  $ svc agent --relay http://127.0.0.1:8080 --token svc_pat_… --fake --appium`,
    )
    .action(async (opts: AgentOptions, command: Command) => {
      const token = opts.token ?? process.env.SVC_AGENT_TOKEN;
      if (!token) command.error('a token is required: --token <svc_pat_…> or SVC_AGENT_TOKEN');
      if (!AGENT_NAME_PATTERN.test(opts.name)) command.error('--name must be 1-64 characters of A-Z a-z 0-9 . _ -');
      if (!/^(https?|wss?):\/\//i.test(opts.relay)) command.error('--relay must be an http(s):// URL');
      if (opts.fakeDevices !== 1 && !opts.fake) command.error('--fake-devices needs --fake');
      if (opts.appium === true && !opts.fake) command.error('--appium needs the URL of the host\'s Appium server (or --fake to start one)');
      if (typeof opts.appium === 'string' && !/^https?:\/\//i.test(opts.appium)) command.error('--appium must be an http(s):// URL');
      await runAgent({ ...opts, token: token! });
    });
}

async function runAgent(opts: AgentOptions & { token: string }): Promise<void> {
  const backend = await selectBackend({ fake: opts.fake, agentName: opts.name, fakeDevices: opts.fakeDevices });
  const started = opts.appium === true ? await startFakeAppium() : null;
  // --fake with a URL: an Appium server with the fake driver already running (the bench shares one with its direct baseline).
  const appiumUrl = started?.url ?? (typeof opts.appium === 'string' ? opts.appium : null);
  const appium = appiumUrl ? new AppiumBridge(appiumUrl, opts.fake ? new FakeAppModels() : new DeviceCapabilityMapping()) : undefined;
  const daemon = new AgentDaemon({ relayUrl: opts.relay, token: opts.token, name: opts.name, backend, version: RELAY_VERSION, appium });
  daemon.on('fatal', () => process.exit(1));
  const shutdown = () => {
    daemon
      .stop()
      .then(() => started?.close())
      .then(() => process.exit(0));
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
  daemon.start();
}

function fakeDeviceCount(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 64) throw new InvalidArgumentError('a whole number from 1 to 64');
  return n;
}

function defaultName(): string {
  return hostname().replace(/[^A-Za-z0-9._-]/g, '-').slice(0, 64) || 'agent';
}

if (require.main === module) {
  agentCommand('svc agent')
    .parseAsync(process.argv.slice(2), { from: 'user' })
    .catch((err) => {
      process.stderr.write(`svc agent: ${(err as Error).message}\n`);
      process.exit(1);
    });
}

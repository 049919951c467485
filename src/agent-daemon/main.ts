import { Command } from 'commander';
import { hostname } from 'node:os';
import { AGENT_NAME_PATTERN } from '../agents/protocol/agent-protocol';
import { RELAY_VERSION } from '../bootstrap/version';
import { AgentDaemon } from './agent-daemon';
import { selectBackend } from './backends/select-backend';

/**
 * `svc agent --relay <url> --token <svc_pat_…> --name <name> [--fake]`: the reference agent.
 * The token may come from SVC_AGENT_TOKEN instead, which keeps it out of the process list.
 * Runs until SIGINT/SIGTERM (exit 0) or until the relay refuses it for good (exit 1).
 */
export async function runAgentCommand(argv: string[]): Promise<void> {
  const program = new Command('svc agent')
    .description('Connect this machine’s simulators and emulators to a relay')
    .requiredOption('--relay <url>', 'relay base URL, e.g. https://relay.example.com')
    .option('--token <token>', 'PAT with the agent scope (or set SVC_AGENT_TOKEN)')
    .option('--name <name>', 'agent name, 1-64 of [A-Za-z0-9._-]', defaultName())
    .option('--fake', 'serve deterministic fake devices instead of adb / simctl', false)
    .parse(argv, { from: 'user' });
  const opts = program.opts<{ relay: string; token?: string; name: string; fake: boolean }>();
  const token = opts.token ?? process.env.SVC_AGENT_TOKEN;
  if (!token) program.error('a token is required: --token <svc_pat_…> or SVC_AGENT_TOKEN');
  if (!AGENT_NAME_PATTERN.test(opts.name)) program.error('--name must be 1-64 characters of A-Z a-z 0-9 . _ -');
  if (!/^(https?|wss?):\/\//i.test(opts.relay)) program.error('--relay must be an http(s):// URL');

  const backend = await selectBackend({ fake: opts.fake, agentName: opts.name });
  const daemon = new AgentDaemon({ relayUrl: opts.relay, token: token!, name: opts.name, backend, version: RELAY_VERSION });
  daemon.on('fatal', () => process.exit(1));
  const shutdown = () => {
    daemon.stop().then(() => process.exit(0));
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
  daemon.start();
}

function defaultName(): string {
  return hostname().replace(/[^A-Za-z0-9._-]/g, '-').slice(0, 64) || 'agent';
}

if (require.main === module) {
  runAgentCommand(process.argv.slice(2)).catch((err) => {
    process.stderr.write(`svc agent: ${(err as Error).message}\n`);
    process.exit(1);
  });
}

import { Command } from 'commander';
import { connectionFrom } from '../client/client-options';

interface McpOptions {
  url?: string;
  token?: string;
}

/**
 * `svc mcp`: the relay's MCP tools over stdio for an AI agent that starts it as a subprocess.
 * stdout carries the protocol only; anything for people goes to stderr. Ends when stdin closes.
 */
export function mcpCommand(): Command {
  return new Command('mcp')
    .description('Serve the relay’s builds and devices to an AI agent over MCP (stdio)')
    .option('--url <url>', 'relay base URL (default: $SVC_URL)')
    .option('--token <pat>', 'personal access token svc_pat_… (default: $SVC_TOKEN)')
    .addHelpText(
      'after',
      `
Speaks the Model Context Protocol on stdin/stdout. Tools: list_builds, get_build, list_devices,
screenshot, ui_tree, tap, swipe, type_text, press_button, launch_app, install_build,
comment_on_build. Each calls the relay with the token, so it may do exactly what the token may do
through the REST API (builds:write for builds and comments, view for devices). See docs/mcp.md.

Examples:
  $ SVC_URL=https://relay.example.com SVC_TOKEN=svc_pat_… svc mcp
  An MCP client configuration (Claude Desktop, Cursor, VS Code …):
  { "mcpServers": { "svc": { "command": "npx", "args": ["svc", "mcp"],
      "env": { "SVC_URL": "https://relay.example.com", "SVC_TOKEN": "svc_pat_…" } } } }`,
    )
    .action(async (options: McpOptions) => {
      // Loaded here, not at start-up: the SDK and zod are only for this command.
      const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
      const { createRelayMcpServer } = await import('../../mcp/relay-tools');
      const server = createRelayMcpServer(connectionFrom(options));
      const transport = new StdioServerTransport();
      const closed = new Promise<void>((resolve) => (transport.onclose = resolve));
      await server.connect(transport);
      process.stderr.write('svc mcp: serving MCP on stdio\n');
      process.stdin.once('end', () => void server.close());
      await closed;
    });
}

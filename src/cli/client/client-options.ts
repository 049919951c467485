import { Command, InvalidArgumentError } from 'commander';
import { usageError } from '../../relay-client/client-errors';
import type { Connection } from '../../relay-client/relay-client';
import { BUILD_PLATFORMS, BUILD_STATUSES, BuildStatus } from '../../relay-client/relay-types';

export interface ClientOptions {
  url?: string;
  token?: string;
  json?: boolean;
}

/** The options every client command shares: where the relay is, the PAT, and --json. */
export function withClientOptions(command: Command): Command {
  return command
    .option('--url <url>', 'relay base URL (default: $SVC_URL), e.g. https://relay.example.com')
    .option('--token <pat>', 'personal access token svc_pat_… (default: $SVC_TOKEN)')
    .option('--json', 'print JSON instead of a table (an error too: { error, status, hint } on stdout)');
}

/** --url/--token win over SVC_URL/SVC_TOKEN; a missing or malformed one is a usage error (exit 2). */
export function connectionFrom(options: ClientOptions, env: NodeJS.ProcessEnv = process.env): Connection {
  const rawUrl = options.url ?? env.SVC_URL;
  // Surrounding blanks come with a copy and paste or a secret file's last newline; no token has any.
  const token = (options.token ?? env.SVC_TOKEN)?.trim();
  if (!rawUrl) throw usageError('No relay URL: set SVC_URL or pass --url https://relay.example.com');
  if (!token) throw usageError('No token: set SVC_TOKEN or pass --token svc_pat_… (create one in the dashboard: account menu → Access tokens)');
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw usageError(`Invalid relay URL "${rawUrl}": expected http://… or https://…`);
  }
  if (!['http:', 'https:'].includes(url.protocol)) {
    throw usageError(`Invalid relay URL "${rawUrl}": expected http://… or https://…`);
  }
  if (/\s/.test(token)) throw usageError(`The token in ${options.token === undefined ? 'SVC_TOKEN' : '--token'} contains a space or a line break: a token has none`);
  const baseUrl = `${url.origin}${relayPath(url.pathname)}`;
  return { baseUrl, token, source: { url: options.url === undefined ? 'SVC_URL' : '--url', token: options.token === undefined ? 'SVC_TOKEN' : '--token' } };
}

/**
 * The first path segments of the dashboard's pages (web/src/app/App.tsx) and of the API. The
 * dashboard is served from the root of its address, so a URL copied from the browser
 * (`https://relay.example.com/builds/3`) means the relay at `https://relay.example.com`; a path
 * before such a segment (a proxy's prefix) is kept. Any other path stays as given, and the
 * relay's answer there (the dashboard's page, not JSON) is explained by RelayClient. The Relay
 * page's `relay` is left out: it is a likely name for a proxy's prefix.
 */
const RELAY_ROUTES = new Set([
  'api', 'builds', 'apps', 'account', 'webhooks', 'tokens', 'team', 'settings', 'audit', 'agents', 'devices',
  'signin', 'invite', 'reset-password',
]);

function relayPath(pathname: string): string {
  const segments = pathname.split('/').filter(Boolean);
  const route = segments.findIndex((segment) => RELAY_ROUTES.has(segment));
  return (route === -1 ? segments : segments.slice(0, route)).map((s) => `/${s}`).join('');
}

/** Commander argument parsers: a bad value is a usage error (exit 2) naming what is allowed. */
export function parseStatus(value: string): BuildStatus {
  const wanted = value.trim().toLowerCase().replace(/[-_]/g, ' ');
  const found = BUILD_STATUSES.find((s) => s.toLowerCase() === wanted);
  if (!found) throw new InvalidArgumentError(`expected one of ${BUILD_STATUSES.join(', ')}`);
  return found;
}

export function parsePlatform(value: string): string {
  const wanted = value.trim().toLowerCase();
  if (!(BUILD_PLATFORMS as readonly string[]).includes(wanted)) {
    throw new InvalidArgumentError(`expected one of ${BUILD_PLATFORMS.join(', ')}`);
  }
  return wanted;
}

export function parsePositiveInt(value: string): number {
  if (!/^\d+$/.test(value.trim()) || Number(value) < 1) throw new InvalidArgumentError('expected a whole number ≥ 1');
  return Number(value);
}

export function parseNonNegativeInt(value: string): number {
  if (!/^\d+$/.test(value.trim())) throw new InvalidArgumentError('expected a whole number ≥ 0');
  return Number(value);
}

export function parseChoice(allowed: readonly string[]) {
  return (value: string): string => {
    if (!allowed.includes(value)) throw new InvalidArgumentError(`expected one of ${allowed.join(', ')}`);
    return value;
  };
}

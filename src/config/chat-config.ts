import { ConfigError } from './config-error';

/** Slack's Web API; a test points `chat.slack.apiUrl` at a fake on loopback. */
export const SLACK_API_URL = 'https://slack.com/api';

/** Which builds a chat destination hears of: bundle ids (`*` any; absent: any) and branches (absent: any build). */
export interface ChatAudience {
  apps: string[] | null;
  branches: string[] | null;
}

export interface SlackChannelRoute extends ChatAudience {
  /** Slack's channel id (`C0123ABCD`), as chat.postMessage takes it. */
  channel: string;
}

/** svc.config.json `chat.slack` (docs/integrations.md "Slack and Microsoft Teams"). */
export interface SlackConfig {
  botTokenEnv: string;
  /** The bot token (`xoxb-…`) read from `botTokenEnv` at start-up; null when unset (nothing is sent). */
  botToken: string | null;
  signingSecretEnv: string;
  /** Slack's signing secret read from `signingSecretEnv`; null when unset (button presses are refused). */
  signingSecret: string | null;
  /** Web API base, no trailing slash (default https://slack.com/api). */
  apiUrl: string;
  channels: SlackChannelRoute[];
}

/** One svc.config.json `chat.teams` entry: a Teams Workflows (or incoming webhook) URL. */
export interface TeamsRoute extends ChatAudience {
  /** What the outbox view calls it (`teams:<name>`); unique. */
  name: string;
  urlEnv: string;
  /** The webhook URL read from `urlEnv` (it carries its own signature: a credential); null when unset. */
  url: string | null;
}

export interface ChatConfig {
  slack: SlackConfig | null;
  teams: TeamsRoute[];
}

type Env = Record<string, string | undefined>;

/** svc.config.json `chat`; tokens, secrets and webhook URLs come from the environment, never from the file. */
export function readChat(value: unknown, env: Env): ChatConfig {
  if (value === undefined || value === null) return { slack: null, teams: [] };
  if (typeof value !== 'object' || Array.isArray(value)) throw new ConfigError('chat', 'an object { slack?, teams? }', value);
  const { slack, teams } = value as Record<string, unknown>;
  return { slack: slack === undefined || slack === null ? null : readSlack(slack, env), teams: readTeams(teams, env) };
}

function readSlack(value: unknown, env: Env): SlackConfig {
  const key = 'chat.slack';
  if (typeof value !== 'object' || Array.isArray(value) || !value) throw new ConfigError(key, 'an object { botTokenEnv, signingSecretEnv, channels, apiUrl? }', value);
  const { botTokenEnv, signingSecretEnv, apiUrl, channels } = value as Record<string, unknown>;
  const tokenEnv = envName(botTokenEnv, `${key}.botTokenEnv`);
  const secretEnv = envName(signingSecretEnv, `${key}.signingSecretEnv`);
  if (apiUrl !== undefined && (typeof apiUrl !== 'string' || !/^https?:\/\/[^\s/]+/i.test(apiUrl))) {
    throw new ConfigError(`${key}.apiUrl`, 'the http:// or https:// URL of the Slack Web API', apiUrl);
  }
  if (!Array.isArray(channels)) throw new ConfigError(`${key}.channels`, 'an array of { channel, apps?, branches? }', channels);
  return {
    botTokenEnv: tokenEnv,
    botToken: env[tokenEnv] || null,
    signingSecretEnv: secretEnv,
    signingSecret: env[secretEnv] || null,
    apiUrl: typeof apiUrl === 'string' ? apiUrl.replace(/\/+$/, '') : SLACK_API_URL,
    channels: channels.map((item, i) => {
      const at = `${key}.channels[${i}]`;
      if (!item || typeof item !== 'object' || Array.isArray(item)) throw new ConfigError(at, 'an object { channel, apps?, branches? }', item);
      const { channel } = item as Record<string, unknown>;
      if (typeof channel !== 'string' || !/^[A-Z0-9]{2,30}$/.test(channel)) throw new ConfigError(`${at}.channel`, 'a Slack channel id such as C0123ABCD', channel);
      return { channel, ...readAudience(item as Record<string, unknown>, at) };
    }),
  };
}

function readTeams(value: unknown, env: Env): TeamsRoute[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new ConfigError('chat.teams', 'an array of { name, urlEnv, apps?, branches? }', value);
  const names = new Set<string>();
  return value.map((item, i) => {
    const at = `chat.teams[${i}]`;
    if (!item || typeof item !== 'object' || Array.isArray(item)) throw new ConfigError(at, 'an object { name, urlEnv, apps?, branches? }', item);
    const { name, urlEnv } = item as Record<string, unknown>;
    if (typeof name !== 'string' || !/^[a-z0-9][a-z0-9-]{0,39}$/.test(name) || names.has(name)) {
      throw new ConfigError(`${at}.name`, 'lower-case letters, digits and dashes, at most 40, unique', name);
    }
    names.add(name);
    const variable = envName(urlEnv, `${at}.urlEnv`);
    const url = env[variable] || null;
    if (url !== null && !/^https?:\/\/[^\s/]+/i.test(url)) throw new ConfigError(variable, `the http:// or https:// webhook URL of ${at}`);
    return { name, urlEnv: variable, url, ...readAudience(item as Record<string, unknown>, at) };
  });
}

function readAudience(item: Record<string, unknown>, at: string): ChatAudience {
  const list = (v: unknown, field: string, what: string): string[] | null => {
    if (v === undefined || v === null) return null;
    if (!Array.isArray(v) || !v.length || v.some((s) => typeof s !== 'string' || !s.trim() || s.length > 200)) throw new ConfigError(`${at}.${field}`, what, v);
    return v as string[];
  };
  const apps = list(item.apps, 'apps', 'a non-empty array of bundle ids (or "*")');
  return { apps: apps?.includes('*') ? null : apps, branches: list(item.branches, 'branches', 'a non-empty array of branch names') };
}

function envName(v: unknown, key: string): string {
  if (typeof v !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(v)) throw new ConfigError(key, 'the name of an environment variable', v);
  return v;
}

/** Whether a build of `bundleId` from `branch` reaches this destination. */
export function reaches(audience: ChatAudience, bundleId: string, branch: string | null): boolean {
  if (audience.apps && !audience.apps.includes(bundleId)) return false;
  return audience.branches === null || (branch !== null && audience.branches.includes(branch));
}

import { ConfigError } from './config-error';

/** jira: Cloud REST v3; jira-dc: Data Center / Server REST v2; linear: GraphQL; github: GitHub Issues REST. */
export type TrackerType = 'jira' | 'jira-dc' | 'linear' | 'github';
export const TRACKER_TYPES: readonly TrackerType[] = ['jira', 'jira-dc', 'linear', 'github'];

/** One svc.config.json `trackers` entry (docs/integrations.md "Issue trackers"). */
export interface ConfigFileTracker {
  /** What the API and the dashboard call it (`jira`, `linear-mobile`); unique. */
  name: string;
  type: TrackerType;
  /** API base URL, no trailing slash: https://acme.atlassian.net, https://jira.acme.lan, https://api.linear.app/graphql, https://api.github.com. */
  url: string;
  tokenEnv: string;
  /** The token read from `tokenEnv` at start-up (null when unset: the tracker is reported, never used). */
  token: string | null;
  /** Jira Cloud: the account e-mail that goes with the API token (Basic auth); null elsewhere (Bearer). */
  emailEnv: string | null;
  email: string | null;
  /** The variable holding the secret the tracker signs its webhooks with, and its value (null: webhooks refused). */
  webhookSecretEnv: string | null;
  webhookSecret: string | null;
  /** Bundle id → project: Jira project key, Linear team id, GitHub `owner/name`. `*` for any app. */
  projects: Record<string, string>;
  /** Jira issue type name (default Bug). */
  issueType: string;
}

type Env = Record<string, string | undefined>;
const SHAPE = 'an array of { name, type, url, tokenEnv, projects, emailEnv?, webhookSecretEnv?, issueType? }';

/** svc.config.json `trackers`; credentials come from the environment, never from the file. */
export function readTrackers(value: unknown, env: Env): ConfigFileTracker[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new ConfigError('trackers', SHAPE);
  const trackers = value.map((item, i) => readTracker(item, `trackers[${i}]`, env));
  const names = new Set<string>();
  trackers.forEach((t, i) => {
    if (names.has(t.name)) throw new ConfigError(`trackers[${i}].name`, 'a name no other tracker has', t.name);
    names.add(t.name);
  });
  return trackers;
}

function readTracker(item: unknown, key: string, env: Env): ConfigFileTracker {
  if (!item || typeof item !== 'object' || Array.isArray(item)) throw new ConfigError(key, 'an object { name, type, url, tokenEnv, projects }');
  const { name, type, url, tokenEnv, emailEnv, webhookSecretEnv, projects, issueType } = item as Record<string, unknown>;
  if (typeof name !== 'string' || !/^[a-z0-9][a-z0-9-]{0,39}$/.test(name)) throw new ConfigError(`${key}.name`, 'lower-case letters, digits and dashes, at most 40', name);
  if (typeof type !== 'string' || !TRACKER_TYPES.includes(type as TrackerType)) throw new ConfigError(`${key}.type`, TRACKER_TYPES.join(', '), type);
  if (typeof url !== 'string' || !/^https?:\/\/[^\s/]+/i.test(url)) throw new ConfigError(`${key}.url`, 'the http:// or https:// URL of the tracker API', url);
  const envName = (v: unknown, field: string, required: boolean): string | null => {
    if (v === undefined && !required) return null;
    if (typeof v !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(v)) throw new ConfigError(`${key}.${field}`, 'the name of an environment variable', v);
    return v;
  };
  const token = envName(tokenEnv, 'tokenEnv', true)!;
  const email = envName(emailEnv, 'emailEnv', false);
  const secret = envName(webhookSecretEnv, 'webhookSecretEnv', false);
  if (!projects || typeof projects !== 'object' || Array.isArray(projects) || !Object.keys(projects).length) {
    throw new ConfigError(`${key}.projects`, 'an object of bundle id (or "*") to project', projects);
  }
  for (const [bundle, project] of Object.entries(projects)) {
    if (typeof project !== 'string' || !project.trim() || project.length > 200) throw new ConfigError(`${key}.projects.${bundle}`, 'a project key, team id or owner/name', project);
    if (type === 'github' && !/^[^/\s]+\/[^/\s]+$/.test(project)) throw new ConfigError(`${key}.projects.${bundle}`, '"owner/name"', project);
  }
  if (issueType !== undefined && (typeof issueType !== 'string' || !issueType.trim())) throw new ConfigError(`${key}.issueType`, 'a Jira issue type name', issueType);
  return {
    name,
    type: type as TrackerType,
    url: url.replace(/\/+$/, ''),
    tokenEnv: token,
    token: env[token] || null,
    emailEnv: email,
    email: email ? env[email] || null : null,
    webhookSecretEnv: secret,
    webhookSecret: secret ? env[secret] || null : null,
    projects: projects as Record<string, string>,
    issueType: typeof issueType === 'string' ? issueType.trim() : 'Bug',
  };
}

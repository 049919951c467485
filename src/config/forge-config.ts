import { ConfigError } from './config-error';

export type ForgeType = 'github' | 'gitlab' | 'gitea';
export const FORGE_TYPES: readonly ForgeType[] = ['github', 'gitlab', 'gitea'];
export const DEFAULT_STATUS_CONTEXT = 'svc/review';
/** A GitHub App's check run is named like GitHub's own checks (`<app> / <check>`). */
export const DEFAULT_CHECK_NAME = 'svc / review';

/** A GitHub App installation: statuses become check runs (docs/integrations.md). */
export interface ForgeAppConfig {
  appId: string;
  /** The variable holding the key (svc.config.json); null for a forge added in the dashboard (the key is in the database, sealed). */
  privateKeyEnv: string | null;
  /** The PEM read from that variable at start-up (null when unset: the forge is reported, never used). */
  privateKey: string | null;
  installationId: string;
}

/** One svc.config.json `forges` entry (docs/integrations.md "Forges"). */
export interface ConfigFileForge {
  type: ForgeType;
  /** API base URL, no trailing slash: https://api.github.com, https://ghe.example/api/v3, https://gitlab.example/api/v4, https://gitea.example/api/v1. */
  url: string;
  tokenEnv: string | null;
  /** The token read from `tokenEnv` at start-up (null when none). */
  token: string | null;
  /** `owner/name` (GitLab: `group/subgroup/name`) this forge posts statuses to; a build naming another is left alone. */
  repositories: string[];
  /** The status context (check name with an App); per platform `<context> (<platform>)` when a commit has builds of both. */
  context: string;
  app: ForgeAppConfig | null;
}

type Env = Record<string, string | undefined>;
const SHAPE = 'an array of { type, url, tokenEnv | app, repositories, context? }';

/** svc.config.json `forges`; tokens come from the environment, never from the file. */
export function readForges(value: unknown, env: Env): ConfigFileForge[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new ConfigError('forges', SHAPE);
  return value.map((item, i) => readForge(item, `forges[${i}]`, env));
}

function readForge(item: unknown, key: string, env: Env): ConfigFileForge {
  if (!item || typeof item !== 'object' || Array.isArray(item)) throw new ConfigError(key, 'an object { type, url, tokenEnv | app, repositories }');
  const { type, url, tokenEnv, repositories, context, app } = item as Record<string, unknown>;
  if (typeof type !== 'string' || !FORGE_TYPES.includes(type as ForgeType)) throw new ConfigError(`${key}.type`, FORGE_TYPES.join(', '), type);
  if (typeof url !== 'string' || !/^https?:\/\/[^\s/]+/i.test(url)) throw new ConfigError(`${key}.url`, 'the http:// or https:// URL of the forge API', url);
  if (tokenEnv !== undefined && (typeof tokenEnv !== 'string' || !tokenEnv)) throw new ConfigError(`${key}.tokenEnv`, 'the name of an environment variable', tokenEnv);
  if (!Array.isArray(repositories) || !repositories.length || repositories.some((r) => typeof r !== 'string' || !/^[^/\s]+(\/[^/\s]+)+$/.test(r))) {
    throw new ConfigError(`${key}.repositories`, 'a non-empty array of "owner/name"', repositories);
  }
  if (context !== undefined && (typeof context !== 'string' || !context.trim() || context.length > 100)) {
    throw new ConfigError(`${key}.context`, 'a status context of 1 to 100 characters', context);
  }
  const appConfig = app === undefined || app === null ? null : readApp(app, `${key}.app`, env);
  if (appConfig && type !== 'github') throw new ConfigError(`${key}.app`, 'only with type "github"', app);
  if (!appConfig && tokenEnv === undefined) throw new ConfigError(key, 'tokenEnv (or, for GitHub, app)');
  return {
    type: type as ForgeType,
    url: url.replace(/\/+$/, ''),
    tokenEnv: typeof tokenEnv === 'string' ? tokenEnv : null,
    // An unset variable does not stop the relay: the forges module warns at start-up, naming the forge.
    token: typeof tokenEnv === 'string' ? env[tokenEnv] || null : null,
    repositories: repositories as string[],
    context: typeof context === 'string' ? context.trim() : appConfig ? DEFAULT_CHECK_NAME : DEFAULT_STATUS_CONTEXT,
    app: appConfig,
  };
}

function readApp(value: unknown, key: string, env: Env): ForgeAppConfig {
  if (!value || typeof value !== 'object') throw new ConfigError(key, 'an object { appId, privateKeyEnv, installationId }');
  const { appId, privateKeyEnv, installationId } = value as Record<string, unknown>;
  const id = (v: unknown, name: string) => {
    if ((typeof v !== 'number' && typeof v !== 'string') || !/^[1-9]\d*$/.test(String(v))) throw new ConfigError(`${key}.${name}`, 'a positive integer', v);
    return String(v);
  };
  if (typeof privateKeyEnv !== 'string' || !privateKeyEnv) throw new ConfigError(`${key}.privateKeyEnv`, 'the name of an environment variable', privateKeyEnv);
  return { appId: id(appId, 'appId'), privateKeyEnv, privateKey: env[privateKeyEnv] || null, installationId: id(installationId, 'installationId') };
}

import { existsSync, readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { readReleaseGateConfig } from './release-gate-config';
import { ConfigError } from './config-error';
import { parseSecretsKey, SECRETS_KEY_ENV } from '../common/crypto/secret-box';
import { readForges } from './forge-config';
import { readTrackers } from './tracker-config';
import { readChat } from './chat-config';
import { readSsoConfig } from './sso-config';
import { AuditForwardingConfig, ConfigFileWebhook, LimitsConfig, LogFormat, LogLevel, RelayConfig, SmtpConfig, StorageConfig } from './relay-config';

/** web/dist of this install: the same from src/config (tests) and dist/config (built). */
const DEFAULT_WEB_DIR = join(__dirname, '..', '..', 'web', 'dist');

/** PostgreSQL connections the relay's pool opens at most, unless configured (measured: docs/decisions.md#issue-27-pg-soak). */
export const DEFAULT_POSTGRES_POOL_SIZE = 10;

type Env = Record<string, string | undefined>;
type FileValues = Record<string, unknown>;

/** svc.config.json (path SVC_CONFIG, default ./svc.config.json) as an object; `{}` when absent. */
function readConfigFile(env: Env, cwd: string): { file: FileValues; configFile: string | null } {
  const configPath = resolve(cwd, env.SVC_CONFIG ?? 'svc.config.json');
  if (!existsSync(configPath)) {
    if (env.SVC_CONFIG) throw new ConfigError('SVC_CONFIG', 'the path of an existing file', env.SVC_CONFIG);
    return { file: {}, configFile: null };
  }
  let file: unknown;
  try {
    file = JSON.parse(readFileSync(configPath, 'utf8'));
  } catch (err) {
    throw new ConfigError('SVC_CONFIG', `a readable JSON file (${configPath})`, String(err));
  }
  if (!file || typeof file !== 'object' || Array.isArray(file)) {
    throw new ConfigError('SVC_CONFIG', 'a JSON object at the top of the file');
  }
  return { file: file as FileValues, configFile: configPath };
}

const LOG_LEVELS: LogLevel[] = ['error', 'warn', 'info', 'debug'];
const LOG_FORMATS: LogFormat[] = ['json', 'text'];

const readLogLevel = (read: ValueReader) => read.oneOf<LogLevel>('SVC_LOG_LEVEL', 'log.level', LOG_LEVELS, 'info');
const readLogFormat = (read: ValueReader) => read.oneOf<LogFormat>('SVC_LOG_FORMAT', 'log.format', LOG_FORMATS, 'json');

/**
 * The log level and format, read before the rest of the configuration so the relay's first line
 * (even "Invalid configuration …") is already in the configured format. Never throws: a value it
 * cannot read falls back to the default here, and loadConfig() then stops the relay naming the key.
 */
export function peekLogSettings(env: Env = process.env, cwd: string = process.cwd()): { level: LogLevel; format: LogFormat } {
  let read: ValueReader;
  try {
    read = new ValueReader(env, readConfigFile(env, cwd).file);
  } catch {
    read = new ValueReader(env, {});
  }
  const orDefault = <T>(value: () => T, fallback: T): T => {
    try {
      return value();
    } catch {
      return fallback;
    }
  };
  return { level: orDefault(() => readLogLevel(read), 'info'), format: orDefault(() => readLogFormat(read), 'json') };
}

/**
 * Reads svc.config.json (path SVC_CONFIG, default ./svc.config.json; an absent file means defaults),
 * lets environment variables override it, and validates every value. Any bad value throws a
 * ConfigError naming the key, so the relay never starts half-configured.
 */
export function loadConfig(env: Env = process.env, cwd: string = process.cwd()): RelayConfig {
  const { file, configFile } = readConfigFile(env, cwd);
  const read = new ValueReader(env, file);
  const dataDir = resolve(cwd, read.string('SVC_DATA_DIR', 'dataDir') ?? './data');
  // At least 2: a member change holds one connection for its advisory lock while it writes through
  // another (src/database/database-lock.ts); a pool of 1 would wait on itself.
  const database = parseDatabase(read.string('SVC_DATABASE_URL', 'database.url'), dataDir, () =>
    read.integer('SVC_DATABASE_POOL_SIZE', 'database.poolSize', DEFAULT_POSTGRES_POOL_SIZE, 2, 1000),
  );
  const tlsCert = read.path('SVC_TLS_CERT', 'tls.cert', cwd);
  const tlsKey = read.path('SVC_TLS_KEY', 'tls.key', cwd);
  if (!!tlsCert !== !!tlsKey) {
    throw new ConfigError('SVC_TLS_CERT/SVC_TLS_KEY', 'both a certificate and a key, or neither');
  }

  return Object.assign(new RelayConfig(), {
    port: read.integer('SVC_PORT', 'port', 8080, 0, 65535),
    host: read.host('SVC_HOST', 'host') ?? '0.0.0.0',
    dataDir,
    database,
    storage: readStorage(read, env),
    redis: parseRedis(read, database),
    relayUrl: read.url('SVC_RELAY_URL', 'relay.url'),
    tunnelUrl: read.url('SVC_TUNNEL_URL', 'relay.tunnelUrl'),
    buildTtlDays: read.number('SVC_BUILD_TTL_DAYS', 'builds.ttlDays', 7, 0.0001, 36500),
    buildFileSweep: read.boolean('SVC_BUILD_FILE_SWEEP', 'builds.fileSweep', true),
    maxBuildBytes: read.integer('SVC_MAX_BUILD_BYTES', 'builds.maxBytes', 524_288_000, 1, Number.MAX_SAFE_INTEGER),
    maxRecordingBytes: read.integer(
      'SVC_MAX_RECORDING_BYTES',
      'recordings.maxBytes',
      209_715_200,
      1,
      Number.MAX_SAFE_INTEGER,
    ),
    maxRecordingDurationMs: read.integer('SVC_MAX_RECORDING_DURATION_MS', 'recordings.maxDurationMs', 1_800_000, 1000, 86_400_000),
    recordingSnapshotIntervalMs: read.integer('SVC_RECORDING_SNAPSHOT_INTERVAL_MS', 'recordings.snapshotIntervalMs', 5000, 100, 3_600_000),
    agents: {
      pingIntervalMs: read.integer('SVC_AGENT_PING_INTERVAL_MS', 'agents.pingIntervalMs', 30_000, 50, 3_600_000),
      screenshotTimeoutMs: read.integer('SVC_SCREENSHOT_TIMEOUT_MS', 'agents.screenshotTimeoutMs', 10_000, 50, 600_000),
      uiTreeTimeoutMs: read.integer('SVC_UI_TREE_TIMEOUT_MS', 'agents.uiTreeTimeoutMs', 15_000, 50, 600_000),
      requestTimeoutMs: read.integer('SVC_AGENT_REQUEST_TIMEOUT_MS', 'agents.requestTimeoutMs', 60_000, 50, 3_600_000),
      installTimeoutMs: read.integer('SVC_AGENT_INSTALL_TIMEOUT_MS', 'agents.installTimeoutMs', 600_000, 50, 3_600_000),
    },
    limits: readLimits(read),
    trustProxy: read.trustProxy('SVC_TRUST_PROXY', 'trustProxy'),
    smtp: readSmtp(read),
    logLevel: readLogLevel(read),
    logFormat: readLogFormat(read),
    bcryptCost: read.integer('SVC_BCRYPT_COST', 'auth.bcryptCost', 11, 4, 15),
    passwordWorkers: read.integer('SVC_PASSWORD_WORKERS', 'auth.passwordWorkers', Math.max(1, Math.min(4, availableParallelism() - 1)), 1, 16),
    tlsCert,
    tlsKey,
    webhooks: readWebhooks(file.webhooks, env),
    forges: readForges(file.forges, env),
    releaseGate: readReleaseGateConfig(file.releaseGate),
    trackers: readTrackers(file.trackers, env),
    chat: readChat(file.chat, env),
    secretsKey: readSecretsKey(env),
    webDir: resolve(cwd, read.string('SVC_WEB_DIR', 'web.dir') ?? DEFAULT_WEB_DIR),
    metrics: {
      enabled: read.boolean('SVC_METRICS', 'metrics.enabled', false),
      port: read.optionalInteger('SVC_METRICS_PORT', 'metrics.port', 0, 65535),
      host: read.host('SVC_METRICS_HOST', 'metrics.host') ?? '127.0.0.1',
    },
    audit: readAuditForwarding(read, env, cwd),
    sso: readSsoConfig(file.sso, env),
    configFile,
  } satisfies RelayConfig);
}

/** The key is a secret: a bad one stops the relay naming the variable, never echoing the value. */
function readSecretsKey(env: Env): Buffer | null {
  try {
    return parseSecretsKey(env[SECRETS_KEY_ENV]);
  } catch (err) {
    throw new ConfigError(SECRETS_KEY_ENV, (err as Error).message);
  }
}

/**
 * Unless configured, one peer address may hold a quarter of the connection cap, never fewer than 4
 * (250 at the default cap: an office behind one NAT fits), so even three hoarding addresses leave a
 * quarter of the places to everyone else (docs/robustness.md "Limits").
 */
function readLimits(read: ValueReader): LimitsConfig {
  const maxConnections = read.integer('SVC_MAX_CONNECTIONS', 'limits.maxConnections', 1000, 1, 1_000_000);
  return {
    maxConnections,
    maxConnectionsPerAddress: read.integer(
      'SVC_MAX_CONNECTIONS_PER_ADDRESS',
      'limits.maxConnectionsPerAddress',
      Math.max(4, Math.floor(maxConnections / 4)),
      1,
      1_000_000,
    ),
    headersTimeoutMs: read.integer('SVC_HEADERS_TIMEOUT_MS', 'limits.headersTimeoutMs', 10_000, 50, 600_000),
    requestTimeoutMs: read.integer('SVC_REQUEST_TIMEOUT_MS', 'limits.requestTimeoutMs', 30_000, 50, 3_600_000),
    deviceSessionInFlight: read.integer('SVC_DEVICE_SESSION_IN_FLIGHT', 'limits.deviceSessionInFlight', 16, 1, 10_000),
    shutdownTimeoutMs: read.integer('SVC_SHUTDOWN_TIMEOUT_MS', 'limits.shutdownTimeoutMs', 10_000, 100, 600_000),
  };
}

/** `audit.syslog`: tcp://host:port or tls://host:port; `audit.httpUrl`; the header's variable by name, never the value in the file. */
function readAuditForwarding(read: ValueReader, env: Env, cwd: string): AuditForwardingConfig {
  const syslog = read.string('SVC_AUDIT_SYSLOG', 'audit.syslog');
  let target: AuditForwardingConfig['syslog'] = null;
  if (syslog) {
    const match = /^(tcp|tls):\/\/(\[[0-9a-fA-F:.]+\]|[^:/\s]+):(\d{1,5})\/?$/.exec(syslog);
    if (!match || Number(match[3]) < 1 || Number(match[3]) > 65535) {
      throw new ConfigError('audit.syslog', 'tcp://host:port or tls://host:port', syslog);
    }
    target = {
      host: match[2].replace(/^\[|\]$/g, ''),
      port: Number(match[3]),
      tls: match[1] === 'tls',
      caFile: read.path('SVC_AUDIT_SYSLOG_CA', 'audit.syslogCaFile', cwd),
    };
  }
  const headerEnv = read.string('SVC_AUDIT_HTTP_AUTHORIZATION_ENV', 'audit.httpAuthorizationEnv');
  return {
    syslog: target,
    httpUrl: read.url('SVC_AUDIT_HTTP_URL', 'audit.httpUrl'),
    httpAuthorization: headerEnv ? env[headerEnv] || null : null,
  };
}

function parseDatabase(url: string | null, dataDir: string, poolSize: () => number): RelayConfig['database'] {
  if (!url) return { type: 'sqlite', path: resolve(dataDir, 'svc.sqlite') };
  if (/^postgres(ql)?:\/\//.test(url)) return { type: 'postgres', url, poolSize: poolSize() };
  if (url.startsWith('sqlite:')) return { type: 'sqlite', path: resolve(dataDir, url.slice('sqlite:'.length)) };
  throw new ConfigError('SVC_DATABASE_URL', 'postgres://user:pass@host/db or sqlite:<file>', url);
}

/** SVC_STORAGE_URL: absent for the data folder, `s3://bucket/prefix` for object storage. */
function readStorage(read: ValueReader, env: Env): StorageConfig {
  const url = read.string('SVC_STORAGE_URL', 'storage.url');
  if (!url) return { type: 'data-dir' };
  const match = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(url);
  if (!match) throw new ConfigError('SVC_STORAGE_URL', 's3://bucket or s3://bucket/prefix', url);
  return {
    type: 's3',
    bucket: match[1],
    prefix: (match[2] ?? '').replace(/^\/+|\/+$/g, ''),
    endpoint: read.url('SVC_S3_ENDPOINT', 'storage.s3.endpoint'),
    region: read.string('SVC_S3_REGION', 'storage.s3.region') ?? env.AWS_REGION ?? 'us-east-1',
    forcePathStyle: read.boolean('SVC_S3_FORCE_PATH_STYLE', 'storage.s3.forcePathStyle', false),
  };
}

/**
 * SVC_REDIS_URL means "I am one of several instances". SQLite is one file on one machine that only
 * one process may write, so that combination is refused here rather than corrupting data later.
 */
function parseRedis(read: ValueReader, database: RelayConfig['database']): RelayConfig['redis'] {
  const url = read.string('SVC_REDIS_URL', 'redis.url');
  if (!url) return null;
  if (!/^rediss?:\/\/[^/?#]/.test(url)) throw new ConfigError('SVC_REDIS_URL', 'redis://[user:pass@]host[:port][/db] or rediss://…', url);
  if (database.type === 'sqlite') {
    throw new ConfigError(
      'SVC_REDIS_URL',
      'a PostgreSQL database (SVC_DATABASE_URL=postgres://…) alongside it: several instances cannot share a SQLite file ' +
        '(unset SVC_REDIS_URL to run one instance on SQLite; docs/scaling.md)',
    );
  }
  const prefix = read.string('SVC_REDIS_PREFIX', 'redis.prefix') ?? 'svc:';
  if (!/^[A-Za-z0-9:._-]{1,64}$/.test(prefix)) throw new ConfigError('SVC_REDIS_PREFIX', '1-64 characters of A-Z a-z 0-9 : . _ -', prefix);
  // Whoever can publish on this Redis could otherwise speak for an instance: make an agent tap, install, screenshot.
  const secret = read.string('SVC_CLUSTER_SECRET', 'cluster.secret');
  if (!secret || secret.length < MIN_CLUSTER_SECRET_LENGTH) {
    throw new ConfigError(
      'SVC_CLUSTER_SECRET',
      `at least ${MIN_CLUSTER_SECRET_LENGTH} characters, the same on every instance, alongside SVC_REDIS_URL: ` +
        'instances sign what they send each other through Redis with it (e.g. `openssl rand -base64 32`; docs/scaling.md)',
      secret ? `${secret.length} characters` : undefined,
    );
  }
  return { url, prefix, secret };
}

/** 32 characters of base64 carry 192 bits: out of reach of guessing a signature offline. */
const MIN_CLUSTER_SECRET_LENGTH = 32;

function readSmtp(read: ValueReader): SmtpConfig | null {
  const host = read.string('SVC_SMTP_HOST', 'smtp.host');
  if (!host) return null;
  const secure = read.boolean('SVC_SMTP_SECURE', 'smtp.secure', false);
  return {
    host,
    port: read.integer('SVC_SMTP_PORT', 'smtp.port', secure ? 465 : 587, 1, 65535),
    secure,
    user: read.string('SVC_SMTP_USER', 'smtp.user'),
    pass: read.string('SVC_SMTP_PASS', 'smtp.pass'),
    from: read.string('SVC_SMTP_FROM', 'smtp.from') ?? 'svc relay <svc-relay@localhost>',
  };
}

function readWebhooks(value: unknown, env: Env): ConfigFileWebhook[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new ConfigError('webhooks', 'an array of { url, secretEnv?, enabled? }');
  return value.map((item, i) => {
    const key = `webhooks[${i}]`;
    if (!item || typeof item !== 'object') throw new ConfigError(key, 'an object { url, secretEnv?, enabled? }');
    const { url, secretEnv, enabled } = item as Record<string, unknown>;
    if (typeof url !== 'string' || !/^https?:\/\//i.test(url)) {
      throw new ConfigError(`${key}.url`, 'an http:// or https:// URL', url);
    }
    if (secretEnv !== undefined && secretEnv !== null && (typeof secretEnv !== 'string' || !secretEnv)) {
      throw new ConfigError(`${key}.secretEnv`, 'the name of an environment variable', secretEnv);
    }
    // An unset secret variable does not stop the relay: the webhooks module warns at start-up,
    // naming the endpoint, and never sends to it (never unsigned).
    if (enabled !== undefined && typeof enabled !== 'boolean') {
      throw new ConfigError(`${key}.enabled`, 'true or false', enabled);
    }
    return {
      url,
      secretEnv: typeof secretEnv === 'string' ? secretEnv : null,
      secret: typeof secretEnv === 'string' ? env[secretEnv] || null : null,
      enabled: enabled ?? true,
    };
  });
}

/** Looks a key up in the environment first, then in the file (dotted path); validates its type. */
class ValueReader {
  constructor(
    private readonly env: Env,
    private readonly file: FileValues,
  ) {}

  private raw(envKey: string, fileKey: string): { key: string; value: unknown } | null {
    const fromEnv = this.env[envKey];
    if (fromEnv !== undefined && fromEnv !== '') return { key: envKey, value: fromEnv };
    let node: unknown = this.file;
    for (const part of fileKey.split('.')) {
      if (!node || typeof node !== 'object') return null;
      node = (node as Record<string, unknown>)[part];
    }
    if (node === undefined || node === null) return null;
    return { key: `${fileKey} (in svc.config.json)`, value: node };
  }

  string(envKey: string, fileKey: string): string | null {
    const found = this.raw(envKey, fileKey);
    if (!found) return null;
    if (typeof found.value !== 'string') throw new ConfigError(found.key, 'a string', found.value);
    return found.value.trim() || null;
  }

  /** The key a value was read from, for messages: the variable, or the file key when the file supplied it. */
  private keyOf(envKey: string, fileKey: string): string {
    return this.raw(envKey, fileKey)?.key ?? envKey;
  }

  path(envKey: string, fileKey: string, cwd: string): string | null {
    const value = this.string(envKey, fileKey);
    if (!value) return null;
    const full = resolve(cwd, value);
    if (!existsSync(full)) throw new ConfigError(this.keyOf(envKey, fileKey), 'the path of a readable file', value);
    return full;
  }

  number(envKey: string, fileKey: string, fallback: number, min: number, max: number): number {
    return this.numeric(envKey, fileKey, fallback, min, max, false);
  }

  integer(envKey: string, fileKey: string, fallback: number, min: number, max: number): number {
    return this.numeric(envKey, fileKey, fallback, min, max, true);
  }

  /** A whole number when set, null when absent. */
  optionalInteger(envKey: string, fileKey: string, min: number, max: number): number | null {
    return this.raw(envKey, fileKey) ? this.numeric(envKey, fileKey, 0, min, max, true) : null;
  }

  /** Plain decimal notation only: "8080", "1.5"; not "0x10", "1e3", "" or "80abc". */
  private numeric(envKey: string, fileKey: string, fallback: number, min: number, max: number, whole: boolean): number {
    const found = this.raw(envKey, fileKey);
    if (!found) return fallback;
    const text = typeof found.value === 'number' ? String(found.value) : String(found.value).trim();
    const pattern = whole ? /^-?\d+$/ : /^-?\d+(\.\d+)?$/;
    const n = Number(text);
    if (!(typeof found.value === 'number' || typeof found.value === 'string') || !pattern.test(text) || n < min || n > max) {
      throw new ConfigError(found.key, `${whole ? 'a whole number' : 'a number'} from ${min} to ${max}`, found.value);
    }
    return n;
  }

  boolean(envKey: string, fileKey: string, fallback: boolean): boolean {
    const found = this.raw(envKey, fileKey);
    if (!found) return fallback;
    if (typeof found.value === 'boolean') return found.value;
    const text = String(found.value).trim().toLowerCase();
    if (['true', '1', 'yes'].includes(text)) return true;
    if (['false', '0', 'no'].includes(text)) return false;
    throw new ConfigError(found.key, 'true or false', found.value);
  }

  oneOf<T extends string>(envKey: string, fileKey: string, allowed: T[], fallback: T): T {
    const found = this.raw(envKey, fileKey);
    if (!found) return fallback;
    const value = String(found.value).trim().toLowerCase() as T;
    if (!allowed.includes(value)) throw new ConfigError(found.key, `one of ${allowed.join(', ')}`, found.value);
    return value;
  }

  url(envKey: string, fileKey: string): string | null {
    const value = this.string(envKey, fileKey);
    if (!value) return null;
    let parsed: URL;
    try {
      parsed = new URL(value);
    } catch {
      throw new ConfigError(this.keyOf(envKey, fileKey), 'an absolute http:// or https:// URL', value);
    }
    if (!['http:', 'https:'].includes(parsed.protocol) || parsed.search || parsed.hash) {
      throw new ConfigError(
        this.keyOf(envKey, fileKey),
        'an absolute http:// or https:// URL without query or fragment',
        value,
      );
    }
    return parsed.toString().replace(/\/+$/, '');
  }

  /** An address to listen on: an IP address or a host name (letters, digits, dots, hyphens). */
  host(envKey: string, fileKey: string): string | null {
    const value = this.string(envKey, fileKey);
    if (!value) return null;
    const hostname = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i;
    if (!isIP(value) && !hostname.test(value)) {
      throw new ConfigError(this.keyOf(envKey, fileKey), 'an IP address (0.0.0.0, 127.0.0.1, ::) or a host name', value);
    }
    return value;
  }

  /** Same forms Express accepts: true/false, a hop count, or a comma list of addresses/subnets/names. */
  trustProxy(envKey: string, fileKey: string): boolean | number | string {
    const found = this.raw(envKey, fileKey);
    if (!found) return false;
    const value = found.value;
    if (typeof value === 'boolean') return value;
    if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return value;
    const text = String(value).trim();
    if (/^(true|false)$/i.test(text)) return text.toLowerCase() === 'true';
    if (/^\d+$/.test(text)) return Number(text);
    const parts = text.split(',').map((p) => p.trim());
    const namedOrAddress = /^(loopback|linklocal|uniquelocal|[0-9a-fA-F.:]+(\/\d{1,3})?)$/;
    if (parts.length && parts.every((p) => namedOrAddress.test(p))) return parts.join(',');
    throw new ConfigError(
      found.key,
      'true, false, a number of hops, or a comma list of addresses/subnets (loopback, linklocal, uniquelocal, 10.0.0.0/8, …)',
      value,
    );
  }
}

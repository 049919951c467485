import type { ReleaseGateConfig } from './release-gate-config';
import type { SsoConfig } from './sso-config';

/** The relay's configuration, read and validated once at start-up (see config.loader.ts). */
import type { ConfigFileForge } from './forge-config';
import type { ConfigFileTracker } from './tracker-config';
import type { ChatConfig } from './chat-config';
export interface SmtpConfig {
  host: string;
  port: number;
  secure: boolean;
  user: string | null;
  pass: string | null;
  from: string;
}

export interface ConfigFileWebhook {
  url: string;
  /** Name of the environment variable holding the signing secret. */
  secretEnv: string | null;
  /** The secret read from that variable at start-up (null when none). */
  secret: string | null;
  enabled: boolean;
}

export type DatabaseConfig =
  | { type: 'sqlite'; path: string }
  /** poolSize: SVC_DATABASE_POOL_SIZE, the most connections the relay opens (docs/database.md, "Concurrency"). */
  | { type: 'postgres'; url: string; poolSize: number };

/** S3-compatible object storage (docs/storage.md). */
export interface S3StorageConfig {
  type: 's3';
  bucket: string;
  /** Key prefix without leading or trailing slash ('' for the bucket's root). */
  prefix: string;
  /** SVC_S3_ENDPOINT: an S3-compatible server (MinIO, Ceph, R2…); null for AWS itself. */
  endpoint: string | null;
  region: string;
  /** SVC_S3_FORCE_PATH_STYLE: `<endpoint>/<bucket>/<key>` instead of `<bucket>.<endpoint>/<key>`. */
  forcePathStyle: boolean;
}

/** Where stored files live: the data folder (default) or S3-compatible object storage. */
export type StorageConfig = { type: 'data-dir' } | S3StorageConfig;

export interface AgentTimingsConfig {
  /** Ping interval, and how long a pong may take before the agent is dropped (30 s). */
  pingIntervalMs: number;
  /** No screenshot answer within this → 504 (10 s, spec §8). */
  screenshotTimeoutMs: number;
  /** No UI tree answer within this → 504 (15 s, spec §8). */
  uiTreeTimeoutMs: number;
  /** Any other method forwarded from a device-session client (60 s). */
  requestTimeoutMs: number;
  /** install_build forwarded from a device-session client: the agent downloads the build, then installs it (10 min). */
  installTimeoutMs: number;
}

/** Where audit entries are forwarded as they are written (docs/audit.md "Forwarding"). */
export interface AuditForwardingConfig {
  /** RFC 5424 over TCP (octet counting, RFC 6587), TLS when `tls` (RFC 5425); null: none. */
  syslog: { host: string; port: number; tls: boolean; caFile: string | null } | null;
  /** Each entry POSTed as JSON; null: none. */
  httpUrl: string | null;
  /** Sent as the Authorization header of those POSTs: the value of the variable audit.httpAuthorizationEnv names. */
  httpAuthorization: string | null;
}

/** Prometheus exposition (docs/metrics.md). */
export interface MetricsConfig {
  /** GET /metrics answers only when true (SVC_METRICS=1); off by default. */
  enabled: boolean;
  /** When set, /metrics is served on this port only (not on the relay's), on `host`. */
  port: number | null;
  host: string;
}

/** Several instances sharing sockets, throttle and locks through Redis (docs/scaling.md); null: one instance. */
export interface RedisConfig {
  url: string;
  /** Prefix of every key and channel, so several relays (or test runs) can share one Redis. */
  prefix: string;
  /** Shared by every instance: each message one sends the others is signed with it (HMAC-SHA256), and one without a valid signature is dropped. */
  secret: string;
}

export type LogLevel = 'error' | 'warn' | 'info' | 'debug';

/** How log lines are written: one JSON object a line (default), or `time LEVEL [context] message`. */
export type LogFormat = 'json' | 'text';

/** What one client can hold, and how long the relay waits when it stops (docs/robustness.md "Limits"). */
export interface LimitsConfig {
  /** Open TCP connections (HTTP and WebSocket together); past it new connections are closed at once. */
  maxConnections: number;
  /** Open TCP connections one peer address may hold; past it its new connections are closed at once. */
  maxConnectionsPerAddress: number;
  /** A connection's request head (request line and headers) must be complete within this. */
  headersTimeoutMs: number;
  /** Whole-request deadline for every route that is not a streamed upload (headers + body + answer). */
  requestTimeoutMs: number;
  /** Requests one device-session client may have waiting on the agent; past it: `busy`. */
  deviceSessionInFlight: number;
  /** SIGTERM/SIGINT to exit: uploads may finish within it, then everything is cut. */
  shutdownTimeoutMs: number;
}

export class RelayConfig {
  port: number;
  host: string;
  dataDir: string;
  database: DatabaseConfig;
  storage: StorageConfig;
  redis: RedisConfig | null;
  relayUrl: string | null;
  /** Public URL of a tunnel started by `svc relay --tunnel` (set by the CLI, never by users). */
  tunnelUrl: string | null;
  buildTtlDays: number;
  /**
   * Whether the builds folder is reconciled with the table (at start-up and every minute). On by
   * default; bench/million turns it off, since its rows have no files (docs/performance.md).
   */
  buildFileSweep: boolean;
  maxBuildBytes: number;
  maxRecordingBytes: number;
  /** A live session recording stops by itself after this long (docs/recordings.md). */
  maxRecordingDurationMs: number;
  /** How often a live session recording reads the UI tree for its timeline. */
  recordingSnapshotIntervalMs: number;
  /** Agent WebSocket timings (agent-protocol.md §1–2); tests shorten them, operators rarely need to. */
  agents: AgentTimingsConfig;
  limits: LimitsConfig;
  /** Express `trust proxy` value; false when the relay is reached directly. */
  trustProxy: boolean | number | string;
  smtp: SmtpConfig | null;
  logLevel: LogLevel;
  /** SVC_LOG_FORMAT / log.format; read before anything else so the first line is already in it (peekLogSettings). */
  logFormat: LogFormat;
  bcryptCost: number;
  /** Threads that hash passwords, apart from libuv's pool that serves file I/O (issue 27). */
  passwordWorkers: number;
  tlsCert: string | null;
  tlsKey: string | null;
  webhooks: ConfigFileWebhook[];
  /** svc.config.json `forges`: where build verdicts become commit statuses (docs/integrations.md). */
  forges: ConfigFileForge[];
  /** svc.config.json `releaseGate`: the release gate's team default and per-bundle-id policies (docs/release-gate.md); read-only in the dashboard. */
  releaseGate: ReleaseGateConfig;
  /** svc.config.json `trackers`: where "Report issue" files bugs (docs/integrations.md "Issue trackers"). */
  trackers: ConfigFileTracker[];
  /** svc.config.json `chat`: Slack channels and Teams webhooks that hear of builds (docs/integrations.md "Slack and Microsoft Teams"). */
  chat: ChatConfig;
  /** SVC_SECRETS_KEY (environment only): seals secrets kept in the database, e.g. dashboard forges' tokens; null when unset. */
  secretsKey: Buffer | null;
  /** Folder of the built dashboard (Vite output; default web/dist of this install). */
  webDir: string;
  metrics: MetricsConfig;
  audit: AuditForwardingConfig;
  /** Single sign-on (OIDC, LDAP) and the SSO-only switch (docs/identity.md). */
  sso: SsoConfig;
  /** Path of the file the values came from, or null when none was found. */
  configFile: string | null;
}

/** The relay's configuration, read and validated once at start-up (see config.loader.ts). */
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
  | { type: 'postgres'; url: string };

export interface AgentTimingsConfig {
  /** Ping interval, and how long a pong may take before the agent is dropped (30 s). */
  pingIntervalMs: number;
  /** No screenshot answer within this → 504 (10 s, spec §8). */
  screenshotTimeoutMs: number;
  /** No UI tree answer within this → 504 (15 s, spec §8). */
  uiTreeTimeoutMs: number;
  /** Any other method forwarded from a device-session client (60 s). */
  requestTimeoutMs: number;
}

export type LogLevel = 'error' | 'warn' | 'info' | 'debug';

export class RelayConfig {
  port: number;
  host: string;
  dataDir: string;
  database: DatabaseConfig;
  relayUrl: string | null;
  /** Public URL of a tunnel started by `svc relay --tunnel` (set by the CLI, never by users). */
  tunnelUrl: string | null;
  buildTtlDays: number;
  maxBuildBytes: number;
  maxRecordingBytes: number;
  /** Agent WebSocket timings (agent-protocol.md §1–2); tests shorten them, operators rarely need to. */
  agents: AgentTimingsConfig;
  /** Express `trust proxy` value; false when the relay is reached directly. */
  trustProxy: boolean | number | string;
  smtp: SmtpConfig | null;
  logLevel: LogLevel;
  bcryptCost: number;
  tlsCert: string | null;
  tlsKey: string | null;
  webhooks: ConfigFileWebhook[];
  /** Path of the file the values came from, or null when none was found. */
  configFile: string | null;
}

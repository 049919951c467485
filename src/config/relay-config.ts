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

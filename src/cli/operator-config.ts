import { Command } from 'commander';
import { keepNewFilesPrivate } from '../storage/private-modes';
import { ConfigError } from '../config/config-error';
import { loadConfig } from '../config/config.loader';
import type { RelayConfig } from '../config/relay-config';
import { usageError } from '../relay-client/client-errors';

export interface OperatorOptions {
  dataDir?: string;
  config?: string;
}

/**
 * Options of the commands that run on the relay host and use its configuration directly. They write
 * the relay's data (database, restored files, backups), so nothing they create is for other users.
 */
export function withOperatorOptions(command: Command): Command {
  return command
    .option('--data-dir <dir>', 'data directory (default: $SVC_DATA_DIR, then svc.config.json, then ./data)')
    .option('--config <file>', 'configuration file (default: $SVC_CONFIG, then ./svc.config.json)')
    .hook('preAction', keepNewFilesPrivate);
}

/**
 * The same configuration `npm start` reads (svc.config.json + SVC_* variables), with command-line
 * options applied as if they were their variables. A bad value is a usage error naming the key.
 */
export function operatorConfig(options: OperatorOptions, overrides: Record<string, string | undefined> = {}): RelayConfig {
  const env: Record<string, string | undefined> = { ...process.env };
  const fromOptions = { SVC_DATA_DIR: options.dataDir, SVC_CONFIG: options.config, ...overrides };
  for (const [key, value] of Object.entries(fromOptions)) if (value !== undefined) env[key] = value;
  try {
    return loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) throw usageError(err.message);
    throw err;
  }
}

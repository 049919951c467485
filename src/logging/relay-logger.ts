import { LoggerService } from '@nestjs/common';
import type { LogLevel } from '../config/relay-config';
import { LogBuffer } from './log-buffer';
import { maskSecrets } from './mask-secrets';

const SEVERITY: Record<LogLevel, number> = { error: 0, warn: 1, info: 2, debug: 3 };

/**
 * The relay's one logger: one JSON object per line on stdout (stderr for errors), secrets masked,
 * and every line also kept in the in-memory buffer behind GET /logs.
 */
export class RelayLogger implements LoggerService {
  readonly buffer = new LogBuffer(500);

  constructor(
    private readonly level: LogLevel = 'info',
    private readonly write: (line: string, level: LogLevel) => void = defaultWrite,
  ) {}

  log(message: unknown, context?: string): void {
    this.record('info', message, context);
  }
  error(message: unknown, stackOrContext?: string, context?: string): void {
    const stack = context ? stackOrContext : undefined;
    this.record('error', message, context ?? stackOrContext, stack);
  }
  warn(message: unknown, context?: string): void {
    this.record('warn', message, context);
  }
  debug(message: unknown, context?: string): void {
    this.record('debug', message, context);
  }
  verbose(message: unknown, context?: string): void {
    this.record('debug', message, context);
  }

  private record(level: LogLevel, message: unknown, context?: string, stack?: string): void {
    if (SEVERITY[level] > SEVERITY[this.level]) return;
    const text = maskSecrets(message instanceof Error ? message.message : typeof message === 'string' ? message : JSON.stringify(message));
    const entry: Record<string, string> = { time: new Date().toISOString(), level, context: context ?? 'Relay', msg: text };
    if (stack) entry.stack = maskSecrets(stack);
    const line = JSON.stringify(entry);
    this.buffer.push(line);
    this.write(line, level);
  }
}

function defaultWrite(line: string, level: LogLevel): void {
  (level === 'error' ? process.stderr : process.stdout).write(line + '\n');
}

import { LoggerService } from '@nestjs/common';
import { isoWithMillis } from '../common/time';
import type { LogLevel } from '../config/relay-config';
import { LogBuffer } from './log-buffer';
import { maskSecrets } from './mask-secrets';

const SEVERITY: Record<LogLevel, number> = { error: 0, warn: 1, info: 2, debug: 3 };

/**
 * Nest's start-up bookkeeping (a line per route, per module, per gateway: about a hundred) is debug
 * detail: at the default level `npm start` prints what an operator needs, not the route table.
 */
const NEST_START_UP_DETAIL = new Set(['RoutesResolver', 'RouterExplorer', 'InstanceLoader', 'WebSocketsController']);

/**
 * The relay's one logger: one JSON object per line on stdout (stderr for errors), secrets masked,
 * and every line also kept in the in-memory buffer behind GET /logs.
 */
export class JsonLogger implements LoggerService {
  readonly buffer = new LogBuffer(500);

  constructor(
    private readonly level: LogLevel = 'info',
    private readonly write: (line: string, level: LogLevel) => void = defaultWrite,
  ) {}

  log(message: unknown, context?: string): void {
    this.record(context && NEST_START_UP_DETAIL.has(context) ? 'debug' : 'info', message, context);
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
    const entry: Record<string, string> = { time: isoWithMillis(new Date()), level, context: context ?? 'Relay', msg: text };
    if (stack) entry.stack = maskSecrets(stack);
    const line = JSON.stringify(entry);
    this.buffer.push(line);
    this.write(line, level);
  }
}

/**
 * stdout lines are gathered and written once per event-loop turn: under load one `write` carries
 * the lines of many requests (a write per request line cost more than the request's own queries;
 * docs/decisions.md#item-8). Errors go out at once, after whatever was waiting, and whatever is left
 * is written when the process exits.
 */
let pending = '';
let flushScheduled = false;

function flushPending(): void {
  flushScheduled = false;
  if (!pending) return;
  const out = pending;
  pending = '';
  process.stdout.write(out);
}

process.on('exit', flushPending);

function defaultWrite(line: string, level: LogLevel): void {
  if (level === 'error') {
    flushPending();
    process.stderr.write(line + '\n');
    return;
  }
  pending += line + '\n';
  if (!flushScheduled) {
    flushScheduled = true;
    setImmediate(flushPending);
  }
}

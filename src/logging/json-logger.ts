import { LoggerService } from '@nestjs/common';
import { isoWithMillis } from '../common/time';
import type { LogFormat, LogLevel } from '../config/relay-config';
import { LogBuffer } from './log-buffer';
import { maskSecrets } from './mask-secrets';

const SEVERITY: Record<LogLevel, number> = { error: 0, warn: 1, info: 2, debug: 3 };

/**
 * Nest's start-up bookkeeping (a line per route, per module, per gateway: about a hundred) is debug
 * detail: at the default level `npm start` prints what an operator needs, not the route table.
 */
const NEST_START_UP_DETAIL = new Set(['RoutesResolver', 'RouterExplorer', 'InstanceLoader', 'WebSocketsController']);

/** What a line may carry beyond its message: the start-up summary's sections, say. */
export type LogFields = Record<string, unknown>;

/**
 * The relay's one logger: one line per entry on stdout (stderr for errors), a JSON object or
 * `time LEVEL [context] message` as configured (SVC_LOG_FORMAT), secrets masked. Every entry is
 * also kept, as JSON whatever the format, in the in-memory buffer behind GET /logs (the dashboard
 * parses it).
 */
export class JsonLogger implements LoggerService {
  readonly buffer = new LogBuffer(500);

  constructor(
    private readonly level: LogLevel = 'info',
    private readonly write: (line: string, level: LogLevel) => void = defaultWrite,
    private readonly format: LogFormat = 'json',
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

  /**
   * What the operator started the process to learn (where it listens, what it is configured with,
   * what to do next): an info line written at every level, so `SVC_LOG_LEVEL=warn` still says where the relay is.
   */
  announce(message: string, context = 'Relay', fields?: LogFields): void {
    this.emit('info', message, context, undefined, fields);
  }

  private record(level: LogLevel, message: unknown, context?: string, stack?: string): void {
    if (SEVERITY[level] > SEVERITY[this.level]) return;
    this.emit(level, message instanceof Error ? message.message : typeof message === 'string' ? message : JSON.stringify(message), context, stack);
  }

  private emit(level: LogLevel, message: string, context = 'Relay', stack?: string, fields?: LogFields): void {
    const entry: Record<string, unknown> = { time: isoWithMillis(new Date()), level, context, msg: maskSecrets(message) };
    if (stack) entry.stack = maskSecrets(stack);
    if (fields) Object.assign(entry, JSON.parse(maskSecrets(JSON.stringify(fields))));
    const json = JSON.stringify(entry);
    this.buffer.push(json);
    this.write(this.format === 'text' ? textLine(entry, fields) : json, level);
  }
}

/**
 * `2025-01-31T12:00:00.000Z INFO  [Context] message`, a stack after ` | ` (its newlines escaped:
 * one entry, one line), then one indented `key: value` line per field, already masked in `entry`.
 */
function textLine(entry: Record<string, unknown>, fields?: LogFields): string {
  const level = String(entry.level).toUpperCase().padEnd(5);
  let line = `${entry.time} ${level} [${entry.context}] ${entry.msg}${entry.stack ? ` | ${entry.stack}` : ''}`;
  for (const key of Object.keys(fields ?? {})) line += `\n  ${key}: ${textValue(entry[key])}`;
  return line;
}

/** A field's value in a text line: strings bare, objects as `key=value` pairs, lists comma-separated. */
function textValue(value: unknown): string {
  if (value === null || value === undefined) return 'none';
  if (Array.isArray(value)) return value.length ? value.map(textValue).join(', ') : 'none';
  if (typeof value === 'object') {
    return Object.entries(value as Record<string, unknown>)
      .map(([key, v]) => `${key}=${textValue(v)}`)
      .join(' ');
  }
  return String(value);
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

import type { LoggerService } from '@nestjs/common';

/** Characters of a dropped message shown in its log line: enough to recognise it, never the whole thing. */
const EXCERPT_CHARS = 120;
/** Log lines per window; past them, dropped messages are counted and the count is logged with the next line. */
const LINES_PER_WINDOW = 20;
const WINDOW_MS = 60_000;

/**
 * Warnings about what came from Redis and was not used. Whoever can publish there can send
 * thousands of bad messages a second: each is dropped, but the log keeps a bounded number of lines
 * a minute, so it cannot be flooded (nor the /logs buffer emptied of everything else).
 */
export class DropReports {
  private windowStart = 0;
  private lines = 0;
  private silenced = 0;

  constructor(
    private readonly logger: LoggerService,
    private readonly now: () => number = Date.now,
  ) {}

  report(what: string, message: Buffer): void {
    const now = this.now();
    if (now - this.windowStart >= WINDOW_MS) {
      this.windowStart = now;
      this.lines = 0;
    }
    if (this.lines >= LINES_PER_WINDOW) {
      this.silenced++;
      return;
    }
    this.lines++;
    const more = this.silenced ? ` (and ${this.silenced} more dropped without a line)` : '';
    this.silenced = 0;
    this.logger.warn(`${what}; starts ${excerpt(message)}${more}`);
  }
}

/** The first characters, with anything not printable escaped (the logger writes JSON lines; this keeps them readable). */
function excerpt(message: Buffer): string {
  const text = message.subarray(0, EXCERPT_CHARS * 4).toString('utf8').slice(0, EXCERPT_CHARS);
  const shown = JSON.stringify(text).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return message.length > Buffer.byteLength(text) ? `${shown}… (${message.length} bytes)` : shown;
}

import { formatBytes } from '../output';

/** A transfer's progress on stderr (stdout keeps the result alone, --json or not). */
export interface Progress {
  advance(bytes: number): void;
  /** The transfer ended, done or not: stop drawing. */
  finish(): void;
}

/** Below this, a transfer is over before a log line would help. */
const LOG_LINES_FROM_BYTES = 1024 * 1024;
const LOG_LINE_EVERY_MS = 10_000;

/**
 * The progress of a transfer of `total` bytes: a bar redrawn in place when stderr is a terminal
 * and --json is not given; otherwise (a CI log, a file, --json) a line at every 10 % and after 10 s
 * without one, so a long upload is never silent in a log. Null for a transfer under 1 MiB with no
 * terminal to draw on.
 */
export function progressFor(label: string, total: number, json: boolean | undefined): Progress | null {
  if (!json && process.stderr.isTTY) return new ProgressBar(label, total);
  return total >= LOG_LINES_FROM_BYTES ? new ProgressLines(label, total) : null;
}

/** The whole percent done and `1.2 MB of 3.0 MB`. */
function describe(done: number, total: number): { ratio: number; percent: number; text: string } {
  const ratio = total > 0 ? Math.min(1, done / total) : 1;
  const percent = Math.floor(ratio * 100);
  return { ratio, percent, text: `${formatBytes(done)} of ${formatBytes(total)}` };
}

/** One line redrawn at most every 100 ms. */
class ProgressBar implements Progress {
  private done = 0;
  private lastDraw = 0;

  constructor(
    private readonly label: string,
    private readonly total: number,
    private readonly stream: NodeJS.WriteStream = process.stderr,
  ) {}

  advance(bytes: number): void {
    this.done += bytes;
    const now = Date.now();
    if (now - this.lastDraw >= 100 || this.done >= this.total) {
      this.lastDraw = now;
      this.draw();
    }
  }

  finish(): void {
    this.draw();
    this.stream.write('\n');
  }

  private draw(): void {
    const { ratio, percent, text } = describe(this.done, this.total);
    const width = 30;
    const filled = Math.round(ratio * width);
    const bar = '#'.repeat(filled) + '-'.repeat(width - filled);
    this.stream.write(`\r${this.label} [${bar}] ${String(percent).padStart(3)}% ${text.replace(' of ', ' / ')}`);
  }
}

/** `Uploading app.apk:  40% (1.2 MB of 3.0 MB)`, one line per 10 % step, and one after 10 s of none. */
class ProgressLines implements Progress {
  private done = 0;
  private lastStep = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly label: string,
    private readonly total: number,
    private readonly stream: NodeJS.WriteStream = process.stderr,
  ) {
    this.rearm();
  }

  advance(bytes: number): void {
    this.done += bytes;
    const step = Math.floor(describe(this.done, this.total).percent / 10);
    if (step > this.lastStep) {
      this.lastStep = step;
      this.line();
    }
  }

  finish(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private line(): void {
    const { percent, text } = describe(this.done, this.total);
    this.stream.write(`${this.label}: ${String(percent).padStart(3)}% (${text})\n`);
    this.rearm();
  }

  /** Ten seconds after the last line, another (a stalled or slow transfer still shows it is alive). */
  private rearm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.line(), LOG_LINE_EVERY_MS);
    this.timer.unref();
  }
}

import { formatBytes } from '../output';

/**
 * A one-line progress bar on stderr, redrawn at most every 100 ms. Only drawn when stderr is a
 * terminal and output is not --json, so CI logs and machine-read output stay clean.
 */
export class ProgressBar {
  private done = 0;
  private lastDraw = 0;

  constructor(
    private readonly label: string,
    private readonly total: number,
    private readonly stream: NodeJS.WriteStream = process.stderr,
  ) {}

  static forTerminal(label: string, total: number, json: boolean | undefined): ProgressBar | null {
    return !json && process.stderr.isTTY ? new ProgressBar(label, total) : null;
  }

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
    const ratio = this.total > 0 ? Math.min(1, this.done / this.total) : 1;
    const width = 30;
    const filled = Math.round(ratio * width);
    const bar = '#'.repeat(filled) + '-'.repeat(width - filled);
    const percent = String(Math.floor(ratio * 100)).padStart(3);
    this.stream.write(`\r${this.label} [${bar}] ${percent}% ${formatBytes(this.done)} / ${formatBytes(this.total)}`);
  }
}

/** The newest log lines, kept in memory for GET /logs. */
export class LogBuffer {
  // A ring: a push overwrites the oldest line instead of shifting 500 (a push per request line).
  private readonly lines: string[] = [];
  private next = 0;

  constructor(readonly capacity = 500) {}

  push(line: string): void {
    if (this.lines.length < this.capacity) this.lines.push(line);
    else this.lines[this.next] = line;
    this.next = (this.next + 1) % this.capacity;
  }

  /** The newest `count` lines, oldest first. */
  tail(count: number): string[] {
    const ordered = this.lines.length < this.capacity ? this.lines : [...this.lines.slice(this.next), ...this.lines.slice(0, this.next)];
    return ordered.slice(-count);
  }
}

/** The newest log lines, kept in memory for GET /logs. */
export class LogBuffer {
  private readonly lines: string[] = [];

  constructor(readonly capacity = 500) {}

  push(line: string): void {
    this.lines.push(line);
    if (this.lines.length > this.capacity) this.lines.splice(0, this.lines.length - this.capacity);
  }

  /** The newest `count` lines, oldest first. */
  tail(count: number): string[] {
    return this.lines.slice(-count);
  }
}

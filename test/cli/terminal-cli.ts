import { ChildProcess, spawn } from 'node:child_process';
import { cliEnv, CliRunOptions, emptyDir, REPO_ROOT } from './cli-process';
import { compiledCliMain } from './compiled-cli';

const shellQuote = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`;

/**
 * `svc <args>` on a real terminal: util-linux `script` gives the CLI a pseudo-terminal (so its
 * no-echo password prompt runs as it does for a person) and relays what the test writes to it.
 * Everything the CLI prints, stdout and stderr, arrives in `output`. Null when `script` is missing.
 */
export class TerminalCli {
  output = '';
  readonly exited: Promise<number | null>;
  private constructor(private readonly child: ChildProcess) {
    child.stdout!.on('data', (c) => (this.output += c));
    child.stderr!.on('data', (c) => (this.output += c));
    this.exited = new Promise((resolve) => child.on('close', (code) => resolve(code)));
  }

  static start(args: string[], options: CliRunOptions = {}): TerminalCli {
    const command = [process.execPath, compiledCliMain(REPO_ROOT), ...args].map(shellQuote).join(' ');
    const child = spawn('script', ['-q', '-e', '-c', command, '/dev/null'], {
      cwd: options.cwd ?? emptyDir(),
      env: cliEnv(options.env),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    return new TerminalCli(child);
  }

  /** Waits until `text` has been printed `times` times in all (prompts repeat). */
  async waitFor(text: string, times = 1, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.output.split(text).length - 1 < times) {
      if (this.child.exitCode !== null || Date.now() > deadline) throw new Error(`"${text}" (×${times}) never printed; output:\n${this.output}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Types a line as a person would: the characters, then Enter. */
  type(line: string): void {
    this.child.stdin!.write(`${line}\r`);
  }

  kill(): void {
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
  }
}

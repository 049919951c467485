/** Exit codes of every `svc` command (docs/cli.md). */
export const ExitCode = {
  ok: 0,
  /** The relay refused the request (its `error` message is printed), or an operator action failed. */
  refused: 1,
  /** The command line was wrong: unknown option, missing argument, bad value, missing SVC_URL/SVC_TOKEN. */
  usage: 2,
} as const;

/** An error the CLI reports as one line on stderr and turns into an exit code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = ExitCode.refused,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export const usageError = (message: string) => new CliError(message, ExitCode.usage);

/**
 * The relay answered with an error status: `relayMessage` is its `{ error }` text, `hint` what the
 * CLI adds on the next line (the scope to ask for, where to make a new token).
 */
export class RelayRefusedError extends CliError {
  constructor(
    readonly status: number,
    readonly relayMessage: string,
    readonly hint?: string,
  ) {
    super(hint ? `${relayMessage}\n${hint}` : relayMessage, ExitCode.refused);
    this.name = 'RelayRefusedError';
  }

  withHint(hint: string): RelayRefusedError {
    return new RelayRefusedError(this.status, this.relayMessage, hint);
  }
}

/** The relay could not be reached, or the connection dropped before it answered (worth a retry). */
export class RelayUnreachableError extends CliError {
  constructor(message: string) {
    super(message, ExitCode.refused);
    this.name = 'RelayUnreachableError';
  }
}

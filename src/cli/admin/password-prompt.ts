import { usageError } from '../../relay-client/client-errors';

/** What was typed past the Enter that ended the last answer (a pasted "pass\rpass\r"): the next prompt's start. */
let typedAhead = '';

/**
 * Reads a password from the terminal without echoing it. Not a terminal (CI, pipes) is a usage
 * error: such callers pass SVC_ADMIN_PASSWORD instead.
 */
export async function promptPassword(question: string): Promise<string> {
  const input = process.stdin;
  if (!input.isTTY) throw usageError('No terminal to ask for the password: set SVC_ADMIN_PASSWORD');
  // Echo goes off before the question shows: whatever is typed (or pasted) once it appears stays hidden.
  input.setRawMode(true);
  process.stderr.write(question);
  input.resume();
  input.setEncoding('utf8');
  try {
    return await new Promise<string>((resolve, reject) => {
      let value = '';
      /** Takes typed characters; true once the answer is complete (or cancelled). */
      const take = (text: string): boolean => {
        for (let i = 0; i < text.length; i++) {
          const ch = text[i];
          if (ch === '\r' || ch === '\n' || ch === '\u0004') {
            typedAhead = text.slice(ch === '\r' && text[i + 1] === '\n' ? i + 2 : i + 1);
            process.stderr.write('\n');
            resolve(value);
            return true;
          }
          if (ch === '\u0003') {
            typedAhead = '';
            process.stderr.write('\n');
            reject(usageError('Cancelled'));
            return true;
          }
          if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
          else value += ch;
        }
        return false;
      };
      const ahead = typedAhead;
      typedAhead = '';
      if (take(ahead)) return;
      const onData = (chunk: string) => {
        if (take(chunk)) input.off('data', onData);
      };
      input.on('data', onData);
    });
  } finally {
    input.setRawMode(false);
    input.pause();
  }
}

/**
 * A new password asked twice; a too-short one or two entries that differ are said and asked again
 * (a typo on a hidden prompt is no reason to start over), up to `attempts` times, then a usage error.
 */
export async function promptNewPassword(question: string, minLength: number, attempts = 3): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    const password = await promptPassword(question);
    const problem =
      password.length < minLength
        ? `The password must be at least ${minLength} characters.`
        : (await promptPassword('Repeat the password: ')) !== password
          ? 'The passwords do not match.'
          : null;
    if (!problem) return password;
    if (attempt >= attempts) throw usageError(problem.slice(0, -1));
    process.stderr.write(`${problem} Try again.\n`);
  }
}

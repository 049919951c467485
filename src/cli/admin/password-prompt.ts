import { usageError } from '../cli-error';

/**
 * Reads a password from the terminal without echoing it. Not a terminal (CI, pipes) is a usage
 * error: such callers pass SVC_ADMIN_PASSWORD instead.
 */
export async function promptPassword(question: string): Promise<string> {
  const input = process.stdin;
  if (!input.isTTY) throw usageError('No terminal to ask for the password: set SVC_ADMIN_PASSWORD');
  process.stderr.write(question);
  input.setRawMode(true);
  input.resume();
  input.setEncoding('utf8');
  try {
    return await new Promise<string>((resolve, reject) => {
      let value = '';
      const onData = (chunk: string) => {
        for (const ch of chunk) {
          if (ch === '\r' || ch === '\n' || ch === '\u0004') {
            input.off('data', onData);
            process.stderr.write('\n');
            return resolve(value);
          }
          if (ch === '\u0003') {
            input.off('data', onData);
            process.stderr.write('\n');
            return reject(usageError('Cancelled'));
          }
          if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
          else value += ch;
        }
      };
      input.on('data', onData);
    });
  } finally {
    input.setRawMode(false);
    input.pause();
  }
}

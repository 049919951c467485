import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

/** A process like the relay's: the safety net installed, then a rejection nobody handles. */
function run(installed: boolean): { status: number | null; output: string } {
  const script = `
    const { JsonLogger } = require(${JSON.stringify(join(__dirname, '..', 'logging', 'json-logger.ts'))});
    if (${installed}) require(${JSON.stringify(join(__dirname, 'unhandled-rejections.ts'))}).logUnhandledRejections(new JsonLogger('info'));
    Promise.reject(new Error('not json'));
    setTimeout(() => process.stdout.write('still running\\n'), 100);
  `;
  const child = spawnSync(process.execPath, ['-r', 'ts-node/register/transpile-only', '-e', script], { encoding: 'utf8' });
  return { status: child.status, output: child.stdout + child.stderr };
}

describe('logUnhandledRejections', () => {
  it('logs an unhandled rejection with its stack, and the process keeps running', () => {
    const { status, output } = run(true);
    expect(status).toBe(0);
    expect(output).toMatch(/"level":"error","context":"Process","msg":"Unhandled promise rejection .*: not json","stack":"Error: not json/);
    expect(output).toContain('still running');
  });

  it('without it, Node ends the process (what it guards against)', () => {
    const { status, output } = run(false);
    expect(status).toBe(1);
    expect(output).not.toContain('still running');
  });
});

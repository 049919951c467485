import { createHash } from 'node:crypto';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';

/**
 * The folder of the copy of a package that the relay loads: `name` as resolved from src/, or
 * `a > b` for the copy of `b` that `a` resolves (Node's node_modules walk, which the `exports` of
 * a package do not restrict, unlike require.resolve of its package.json).
 */
export function packageDir(chain: string): string {
  let from = __dirname;
  for (const name of chain.split('>').map((part) => part.trim())) {
    from = findUp(from, name);
  }
  return from;
}

function findUp(start: string, name: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return realpathSync(candidate);
    if (dirname(dir) === dir) break;
  }
  // Then NODE_PATH, as require() does: a copy of dist/ outside the repo (the CLI tests) loads its packages from there.
  for (const dir of (process.env.NODE_PATH ?? '').split(delimiter).filter(Boolean)) {
    const candidate = join(dir, name);
    if (existsSync(join(candidate, 'package.json'))) return realpathSync(candidate);
  }
  throw new Error(`${name} is not installed (looked up from ${start})`);
}

/** The version of the copy packageDir(chain) finds. */
export function installedVersion(chain: string): string {
  return (JSON.parse(readFileSync(join(packageDir(chain), 'package.json'), 'utf8')) as { version: string }).version;
}

/** A file of that copy, e.g. `require(packageFile('busboy', 'lib/types/multipart.js'))`. */
export function packageFile(chain: string, file: string): string {
  return join(packageDir(chain), file);
}

/** sha256 of sources (function texts, file contents), in order. */
export function sha256Of(sources: readonly string[]): string {
  return createHash('sha256').update(sources.join('\n')).digest('hex');
}

/** V8's version without Node's patch suffix: what the V8 flags and undocumented options are read against. */
export function v8Version(): string {
  return process.versions.v8.split('-')[0];
}

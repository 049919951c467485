import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The full path of a program on PATH, or null when it is not installed there. */
export function findExecutable(name: string, path: string = process.env.PATH ?? ''): string | null {
  const extensions = process.platform === 'win32' ? ['.exe', '.cmd', ''] : [''];
  for (const dir of path.split(delimiter).filter(Boolean)) {
    for (const ext of extensions) {
      const candidate = join(dir, name + ext);
      try {
        if (!statSync(candidate).isFile()) continue;
        accessSync(candidate, constants.X_OK);
        return candidate;
      } catch {
        // not here
      }
    }
  }
  return null;
}

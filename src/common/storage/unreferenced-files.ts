import { readdir, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Deletes the files in `dir` whose names `referenced()` does not return (left by a crash between
 * the file move and the row insert, or between a row delete and its unlink). The references are
 * read after the folder is listed, so a file stored meanwhile is never taken for an orphan; files
 * younger than `graceMs` are kept as well, since their row may be about to be written.
 */
export async function removeUnreferencedFiles(
  dir: string,
  referenced: () => Promise<Set<string>>,
  graceMs: number,
  nowMs = Date.now(),
): Promise<number> {
  const names = await readdir(dir).catch(() => [] as string[]);
  if (!names.length) return 0;
  const inUse = await referenced();
  let removed = 0;
  for (const name of names.filter((n) => !inUse.has(n))) {
    const info = await stat(join(dir, name)).catch(() => null);
    if (!info?.isFile() || nowMs - info.mtimeMs < graceMs) continue;
    await unlink(join(dir, name)).catch(() => undefined);
    removed++;
  }
  return removed;
}

import type { FileStore } from './file-store';

/**
 * Deletes the files in the store folder `prefix` whose names `referenced()` does not return (left
 * by a crash between storing a file and inserting its row, or between a row delete and the file's
 * removal). The references are read after the folder is listed, so a file stored meanwhile is never
 * taken for an orphan; files younger than `graceMs` are kept as well, since their row may be about
 * to be written. Only unreferenced files are stat-ed (for their age).
 */
export async function removeUnreferencedFiles(
  store: FileStore,
  prefix: string,
  referenced: () => Promise<Set<string>>,
  graceMs: number,
  nowMs = Date.now(),
): Promise<number> {
  const names: string[] = [];
  for await (const key of store.list(prefix)) names.push(key.slice(prefix.length));
  if (!names.length) return 0;
  const inUse = await referenced();
  const orphans: string[] = [];
  for (const name of names.filter((n) => !inUse.has(n))) {
    const info = await store.stat(prefix + name).catch(() => null);
    if (info && nowMs - info.modifiedMs >= graceMs) orphans.push(prefix + name);
  }
  await store.remove(orphans);
  return orphans.length;
}

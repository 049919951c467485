import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { randomHex } from '../../common/crypto/secret-token';
import type { StoragePaths } from '../../common/storage/storage-paths';

/**
 * Where build files live: `<data>/builds/<generated name>`, never a client-chosen name. Shared by
 * the builds feature (upload, purge, sweep) and app deletion, which removes its builds' files.
 */
export class BuildFiles {
  constructor(private readonly paths: StoragePaths) {}

  /** A fresh storage name keeping the archive's extension (`.apk`, `.app.zip`, `.tar.gz`, `.tgz`). */
  newName(extension: string): string {
    return `${randomHex(16)}${extension}`;
  }

  pathOf(fileName: string): string {
    const full = this.paths.inside(this.paths.builds, fileName);
    if (!full) throw new Error(`Refusing a build file name outside the builds folder: ${fileName}`);
    return full;
  }

  /** Removes files; a file already gone is fine. */
  async remove(fileNames: string[]): Promise<void> {
    await Promise.all(fileNames.map((name) => rm(this.pathOf(name), { force: true })));
  }

  /** Names in the builds folder with their modification time (for the orphan sweep). */
  async list(): Promise<{ name: string; modifiedMs: number }[]> {
    const names = await readdir(this.paths.builds);
    const found = await Promise.all(
      names.map(async (name) => {
        const info = await stat(join(this.paths.builds, name)).catch(() => null);
        return info?.isFile() ? { name, modifiedMs: info.mtimeMs } : null;
      }),
    );
    return found.filter((f): f is { name: string; modifiedMs: number } => f !== null);
  }
}

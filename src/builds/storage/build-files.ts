import { Injectable } from '@nestjs/common';
import { readdir, rm, stat } from 'node:fs/promises';
import { randomHex } from '../../common/crypto/secret-token';
import { StoragePaths } from '../../common/storage/storage-paths';

/**
 * Where build files live: `<data>/builds/<generated name>`, never a client-chosen name. Only the
 * builds module touches them (upload, download, purge, sweep, deletion with an app).
 */
@Injectable()
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

  /** Names of the files in the builds folder (one directory read, no stat per file). */
  async names(): Promise<Set<string>> {
    const entries = await readdir(this.paths.builds, { withFileTypes: true });
    return new Set(entries.filter((e) => e.isFile()).map((e) => e.name));
  }

  /** A stored file's modification time, or null when it is not (or no longer) a file. */
  async modifiedMs(fileName: string): Promise<number | null> {
    const info = await stat(this.pathOf(fileName)).catch(() => null);
    return info?.isFile() ? info.mtimeMs : null;
  }
}

import { Injectable } from '@nestjs/common';
import { mkdirSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { RelayConfig } from '../../config/relay-config';

/**
 * Where each kind of stored file lives under SVC_DATA_DIR. Temp files sit on the same disk so
 * moving a finished upload into place is an atomic rename.
 *
 *   <data>/svc.sqlite            database (SQLite)
 *   <data>/tmp/                  uploads being received
 *   <data>/builds/               build files
 *   <data>/uploads/{avatars,logos,comments}/   files served under /uploads/
 *   <data>/recordings/           screen recordings
 */
@Injectable()
export class StoragePaths {
  readonly root: string;
  readonly tmp: string;
  readonly builds: string;
  readonly uploads: string;
  readonly recordings: string;

  constructor(config: RelayConfig) {
    this.root = config.dataDir;
    this.tmp = join(this.root, 'tmp');
    this.builds = join(this.root, 'builds');
    this.uploads = join(this.root, 'uploads');
    this.recordings = join(this.root, 'recordings');
    for (const dir of [this.tmp, this.builds, this.uploads, this.recordings]) mkdirSync(dir, { recursive: true });
  }

  /** Resolves `relative` inside `base`, or null when it would escape it (`..`, absolute paths). */
  inside(base: string, relative: string): string | null {
    const full = resolve(base, relative);
    return full.startsWith(resolve(base) + sep) ? full : null;
  }
}

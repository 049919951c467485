import { Injectable } from '@nestjs/common';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { RelayConfig } from '../config/relay-config';
import { PRIVATE_FOLDER_MODE } from './private-modes';

/**
 * The local folders of SVC_DATA_DIR that stay on this machine whatever the storage backend:
 *
 *   <data>/svc.sqlite            database (SQLite)
 *   <data>/tmp/                  uploads being received and inspected, before they go to the store
 *
 * Stored files themselves go through `FileStore`: with the default backend they sit
 * beside these (`<data>/builds/`, `<data>/uploads/…`, `<data>/recordings/`), so moving a finished
 * upload into place is an atomic rename on one disk.
 */
@Injectable()
export class StoragePaths {
  readonly root: string;
  readonly tmp: string;

  constructor(config: RelayConfig) {
    this.root = config.dataDir;
    this.tmp = join(this.root, 'tmp');
    mkdirSync(this.tmp, { recursive: true, mode: PRIVATE_FOLDER_MODE });
  }
}

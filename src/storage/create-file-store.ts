import type { RelayConfig } from '../config/relay-config';
import { DiskFileStore } from './disk-file-store';
import type { FileStore } from './file-store';
import { S3FileStore } from './s3-file-store';

/** The store the configuration names: the data folder, or S3-compatible object storage (the relay and `svc backup`/`restore`). */
export function createFileStore(config: RelayConfig): FileStore {
  return config.storage.type === 's3' ? new S3FileStore(config.storage) : new DiskFileStore(config.dataDir);
}

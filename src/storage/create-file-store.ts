import type { RelayConfig } from '../config/relay-config';
import { DiskFileStore } from './disk-file-store';
import type { FileStore } from './file-store';

/** The store the configuration names: the data folder, or S3-compatible object storage (the relay and `svc backup`/`restore`). */
export function createFileStore(config: RelayConfig): FileStore {
  if (config.storage.type !== 's3') return new DiskFileStore(config.dataDir);
  // The S3 SDK is loaded only by a relay that stores in S3: for the others it was start-up time and
  // idle memory spent on nothing (docs/decisions.md#s1).
  const { S3FileStore } = require('./s3-file-store') as typeof import('./s3-file-store');
  return new S3FileStore(config.storage);
}

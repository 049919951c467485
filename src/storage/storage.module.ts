import { Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { RelayConfig } from '../config/relay-config';
import { createFileStore } from './create-file-store';
import { FileStore } from './file-store';
import { StoragePaths } from './storage-paths';
import { StoredFileOwners } from './stored-file-owners';

/** Releases the store's connections (S3's sockets) when the relay stops. */
@Injectable()
class FileStoreLifecycle implements OnApplicationShutdown {
  constructor(@Inject(FileStore) private readonly store: FileStore) {}

  onApplicationShutdown(): void {
    this.store.close();
  }
}

/**
 * Storage, one place for all of it: the `FileStore` every stored file goes through, the data
 * folder's local layout (`StoragePaths`, `private-modes.ts`) and the file responses
 * (`file-responses.ts`), and the registry of who owns which stored files (`StoredFileOwners`, read
 * by the orphan sweeps). Feature modules own their keys: builds `builds/…`, images `uploads/…`,
 * recordings `recordings/…`.
 */
@Module({
  providers: [
    {
      provide: FileStore,
      inject: [RelayConfig],
      useFactory: createFileStore,
    },
    FileStoreLifecycle,
    StoragePaths,
    StoredFileOwners,
  ],
  exports: [FileStore, StoragePaths, StoredFileOwners],
})
export class StorageModule {}

import { Global, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { RelayConfig } from '../config/relay-config';
import { createFileStore } from './create-file-store';
import { FileStore } from './file-store';

/** Releases the store's connections (S3's sockets) when the relay stops. */
@Injectable()
class FileStoreLifecycle implements OnApplicationShutdown {
  constructor(@Inject(FileStore) private readonly store: FileStore) {}

  onApplicationShutdown(): void {
    this.store.close();
  }
}

/**
 * The one storage every stored file goes through (`FileStore`), global like the config it is
 * built from. Feature modules own their keys: builds `builds/…`, images `uploads/…`, recordings
 * `recordings/…`.
 */
@Global()
@Module({
  providers: [
    {
      provide: FileStore,
      inject: [RelayConfig],
      useFactory: createFileStore,
    },
    FileStoreLifecycle,
  ],
  exports: [FileStore],
})
export class StorageModule {}

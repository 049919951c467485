import { Global, Module } from '@nestjs/common';
import { Clock } from './clock';
import { StoragePaths } from './storage/storage-paths';

/** Cross-cutting providers every feature may inject. */
@Global()
@Module({ providers: [Clock, StoragePaths], exports: [Clock, StoragePaths] })
export class CommonModule {}

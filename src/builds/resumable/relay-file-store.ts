import type { FileConfigstore, FileStore } from '@tus/file-store';
import type { Upload } from '@tus/server';
import { createWriteStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { join } from 'node:path';
import { DiskReserveGuard } from '../../common/multipart/disk-reserve-guard';
import { DISK_RESERVE_BYTES, notEnoughSpace } from '../../common/multipart/multipart-receiver';
import { isUploadId } from './upload-id';
import { tusModules } from './tus-modules';

/**
 * @tus/file-store as the relay uses it. Both stores join an id onto their folder as a path, so each
 * refuses (404, as a rejection like tus's own) an id not in the relay's form before touching the
 * disk, whatever the layers above let through. Bytes are written through the disk-reserve guard: a PATCH without Content-Length
 * (chunked) is held to the reserve as it arrives, as a multipart upload is.
 */
export function createRelayFileStores(directory: string, expirationMs: number): { store: FileStore; infos: FileConfigstore } {
  const { FileStore: TusFileStore, FileConfigstore: TusConfigstore } = tusModules();

  class RelayConfigstore extends TusConfigstore {
    override async get(id: string) {
      return super.get(checked(id));
    }
    override async set(id: string, upload: Upload) {
      return super.set(checked(id), upload);
    }
    override async delete(id: string) {
      return super.delete(checked(id));
    }
  }

  class RelayFileStore extends TusFileStore {
    override async create(upload: Upload) {
      checked(upload.id);
      return super.create(upload);
    }
    override read(id: string) {
      return super.read(checked(id));
    }
    override async remove(id: string) {
      return super.remove(checked(id));
    }
    override async getUpload(id: string) {
      return super.getUpload(checked(id));
    }
    override async declareUploadLength(id: string, length: number) {
      return super.declareUploadLength(checked(id), length);
    }
    override async write(readable: Readable, id: string, offset: number): Promise<number> {
      const path = join(this.directory, checked(id));
      const guard = new DiskReserveGuard(this.directory, DISK_RESERVE_BYTES);
      try {
        await pipeline(readable, guard, createWriteStream(path, { flags: 'r+', start: offset }));
      } catch (err) {
        if (guard.refusal) throw guard.refusal;
        const code = (err as NodeJS.ErrnoException).code;
        throw code === 'ENOSPC' || code === 'EDQUOT' ? notEnoughSpace() : tusModules().ERRORS.FILE_WRITE_ERROR;
      }
      return offset + guard.passed;
    }
  }

  const infos = new RelayConfigstore(directory);
  const store = new RelayFileStore({ directory, configstore: infos, expirationPeriodInMilliseconds: expirationMs });
  return { store, infos };
}

function checked(id: string): string {
  if (!isUploadId(id)) throw tusModules().ERRORS.FILE_NOT_FOUND;
  return id;
}

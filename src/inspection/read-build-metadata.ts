import { readApk } from './apk';
import type { ArchiveType } from './archive-type';
import type { BuildMetadata } from './build-metadata';
import { readIosTarball, readIosZip } from './ios-bundle';

/** Reads the metadata of a received build file of a known type (throws MalformedBuildError when it cannot). */
export function readBuildMetadata(path: string, type: ArchiveType, size: number): Promise<BuildMetadata> {
  switch (type.kind) {
    case 'apk':
      return readApk(path, size);
    case 'app-zip':
      return readIosZip(path, size);
    case 'tar-gz':
      return readIosTarball(path, size);
  }
}

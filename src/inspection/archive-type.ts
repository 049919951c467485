import type { Platform } from '../app-catalogue/platform';
import { MalformedBuildError } from './malformed-build.error';

export type ArchiveKind = 'apk' | 'app-zip' | 'tar-gz';

export interface ArchiveType {
  kind: ArchiveKind;
  platform: Platform;
  /** Extension the stored file keeps (downloads use the original name anyway). */
  extension: string;
}

const ZIP_MAGIC = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
const GZIP_MAGIC = Buffer.from([0x1f, 0x8b]);

export const UNSUPPORTED_TYPE_MESSAGE =
  'Unsupported file type: upload an iOS simulator build (.app.zip, .tar.gz or .tgz) or an Android .apk';

/** An .ipa, or an .app built for devices (iPhoneOS) inside a simulator build's archive (app-choice.ts). */
export const DEVICE_BUILD_MESSAGE =
  '.ipa files are device builds and cannot run on a simulator; upload a simulator build (.app.zip, .tar.gz or .tgz)';

/**
 * The type of an upload from its file name, confirmed by its first bytes (a renamed file is refused).
 * `.ipa` and `.aab` are refused with what to upload instead.
 */
export function archiveTypeOf(fileName: string, head: Buffer): ArchiveType {
  const name = fileName.toLowerCase();
  if (name.endsWith('.ipa')) {
    throw new MalformedBuildError(DEVICE_BUILD_MESSAGE);
  }
  if (name.endsWith('.aab')) {
    throw new MalformedBuildError(
      '.aab (Android App Bundle) files cannot be installed directly; upload an APK (for example from `./gradlew assembleDebug` or bundletool build-apks --mode=universal)',
    );
  }
  let type: ArchiveType;
  if (name.endsWith('.apk')) type = { kind: 'apk', platform: 'android', extension: '.apk' };
  else if (name.endsWith('.app.zip')) type = { kind: 'app-zip', platform: 'ios', extension: '.app.zip' };
  else if (name.endsWith('.tar.gz')) type = { kind: 'tar-gz', platform: 'ios', extension: '.tar.gz' };
  else if (name.endsWith('.tgz')) type = { kind: 'tar-gz', platform: 'ios', extension: '.tgz' };
  else throw new MalformedBuildError(UNSUPPORTED_TYPE_MESSAGE);

  const magic = type.kind === 'tar-gz' ? GZIP_MAGIC : ZIP_MAGIC;
  if (head.length < magic.length || !head.subarray(0, magic.length).equals(magic)) {
    const expected = type.kind === 'tar-gz' ? 'a gzip-compressed tar archive' : 'a zip archive';
    throw new MalformedBuildError(`The file's content does not match its name: a ${type.extension} must be ${expected}`);
  }
  return type;
}

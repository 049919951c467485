import { readApkManifest } from './apk-manifest';
import type { BuildMetadata } from './build-metadata';
import { MalformedBuildError } from './malformed-build.error';
import { ZipArchive, ZipEntryRef } from './zip-archive';

/** Real manifests are a few KB to a few hundred KB. */
const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;
/** resources.arsc of large apps reaches tens of MB; it is read only when the label is a reference. */
const MAX_RESOURCES_BYTES = 64 * 1024 * 1024;

/** Reads an APK's metadata from its central directory: AndroidManifest.xml, and resources.arsc when needed. */
export async function readApk(path: string): Promise<BuildMetadata> {
  const zip = await ZipArchive.open(path);
  try {
    let manifest: ZipEntryRef | null = null;
    let resources: ZipEntryRef | null = null;
    await zip.scan((ref) => {
      if (ref.name === 'AndroidManifest.xml') manifest ??= ref;
      else if (ref.name === 'resources.arsc') resources ??= ref;
      return !!manifest && !!resources;
    });
    const manifestRef = manifest as ZipEntryRef | null;
    const resourcesRef = resources as ZipEntryRef | null;
    if (!manifestRef) throw new MalformedBuildError('The APK contains no AndroidManifest.xml');
    const bytes = await zip.read(manifestRef, MAX_MANIFEST_BYTES, 'AndroidManifest.xml');
    return await readApkManifest(bytes, async () =>
      resourcesRef ? zip.read(resourcesRef, MAX_RESOURCES_BYTES, 'resources.arsc') : null,
    );
  } finally {
    zip.close();
  }
}

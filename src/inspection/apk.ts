import { launcherIconId, readApkIcon } from './apk-icon';
import { ApkContentsReader } from './apk-contents';
import { decodeManifest, readManifestMetadata } from './apk-manifest';
import { ResourceTable } from './arsc';
import type { BuildIcon } from './build-icon';
import type { BuildMetadata } from './build-metadata';
import { MalformedBuildError } from './malformed-build.error';
import { ZipArchive, ZipEntryRef } from './zip-archive';

/** Real manifests are a few KB to a few hundred KB. */
const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;
/** resources.arsc of large apps reaches tens of MB; it is read only when the label or the icon is a reference. */
const MAX_RESOURCES_BYTES = 64 * 1024 * 1024;

/**
 * Reads an APK's metadata from its central directory: AndroidManifest.xml, resources.arsc when
 * needed, and the launcher icon's best-density bitmap (apk-icon.ts); and what it holds (apk-contents.ts),
 * added up in the same pass.
 */
export async function readApk(path: string, size?: number): Promise<BuildMetadata> {
  const zip = await ZipArchive.open(path, size);
  try {
    let manifest: ZipEntryRef | null = null;
    let resources: ZipEntryRef | null = null;
    // One pass over the central directory (yauzl cannot rewind): the two files, the iconEntries an icon
    // may be, and the adaptive-icon XMLs (anydpi folders) it may be composed from.
    const iconEntries = new Map<string, ZipEntryRef>();
    const contents = new ApkContentsReader();
    await zip.scan((ref) => {
      contents.visit(ref);
      if (ref.name === 'AndroidManifest.xml') manifest ??= ref;
      else if (ref.name === 'resources.arsc') resources ??= ref;
      else if (ref.name.startsWith('res/') && /\.(png|webp)$/i.test(ref.name)) iconEntries.set(ref.name, ref);
      else if (/^res\/[^/]*anydpi[^/]*\/[^/]+\.xml$/.test(ref.name)) iconEntries.set(ref.name, ref);
    });
    const manifestRef = manifest as ZipEntryRef | null;
    const resourcesRef = resources as ZipEntryRef | null;
    if (!manifestRef) throw new MalformedBuildError('The APK contains no AndroidManifest.xml');
    const bytes = await zip.read(manifestRef, MAX_MANIFEST_BYTES, 'AndroidManifest.xml');
    let resourceBytes: Promise<Buffer | null> | null = null;
    const loadResources = () =>
      (resourceBytes ??= resourcesRef ? zip.read(resourcesRef, MAX_RESOURCES_BYTES, 'resources.arsc') : Promise.resolve(null));
    const elements = decodeManifest(bytes);
    const metadata = await readManifestMetadata(elements, loadResources);
    const iconId = launcherIconId(bytes);
    return {
      ...metadata,
      icon: iconId === null ? null : await optionalIcon(zip, iconEntries, iconId, loadResources),
      contents: await contents.finish(zip, elements),
    };
  } finally {
    zip.close();
  }
}

/** The icon is a nicety: a table or file the icon reader cannot use leaves the build without one, never refused. */
async function optionalIcon(
  zip: ZipArchive,
  iconEntries: Map<string, ZipEntryRef>,
  iconId: number,
  loadResources: () => Promise<Buffer | null>,
): Promise<BuildIcon | null> {
  try {
    const resources = await loadResources();
    return resources ? await readApkIcon(zip, iconEntries, new ResourceTable(resources), iconId) : null;
  } catch (err) {
    if (err instanceof MalformedBuildError) return null;
    throw err;
  }
}

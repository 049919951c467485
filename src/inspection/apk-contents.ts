import { attr, integerValue, valueText } from './apk-manifest';
import { readApkSigning, isV1SignatureBlock } from './apk-signing';
import type { XmlElement } from './binary-xml';
import { AndroidCategory, AndroidFeature, BuildContents, CONTENTS_FORMAT, ContentsTally, distinct } from './build-contents';
import { ValueType } from './res-chunks';
import type { ZipArchive, ZipEntryRef } from './zip-archive';

/** android.R.attr ids (obfuscated manifests keep only these). */
const ATTR = { name: 0x01010003, minSdkVersion: 0x0101020c, targetSdkVersion: 0x01010270, required: 0x0101028e } as const;
const PERMISSION_ELEMENTS = new Set(['uses-permission', 'uses-permission-sdk-23', 'uses-permission-sdk-m']);
const MAX_LISTED = 1000;

/** The category of an APK entry, and the ABI of a native library. */
export function apkCategory(name: string): { category: AndroidCategory; name: string | null } {
  if (/^classes\d*\.dex$/.test(name)) return { category: 'dex', name: null };
  if (name === 'resources.arsc') return { category: 'resources_table', name: null };
  if (name === 'AndroidManifest.xml') return { category: 'manifest', name: null };
  if (name.startsWith('res/')) return { category: 'res', name: null };
  if (name.startsWith('assets/')) return { category: 'assets', name: null };
  const lib = /^lib\/([^/]+)\/./.exec(name);
  if (lib) return { category: 'native', name: lib[1] };
  if (/^META-INF\/([^/]+\.(SF|RSA|DSA|EC)|MANIFEST\.MF)$/i.test(name)) return { category: 'signature', name: null };
  return { category: 'other', name: null };
}

/**
 * Collects an APK's contents during the one pass over its central directory (`visit` per entry),
 * then reads what lies outside the entries (signing) once the pass is over.
 */
export class ApkContentsReader {
  private readonly tally = new ContentsTally(true);
  private readonly v1Blocks: ZipEntryRef[] = [];
  private hasSignatureFile = false;

  visit(ref: ZipEntryRef): void {
    const { category, name } = apkCategory(ref.name);
    this.tally.add(category, name, ref.name, ref.entry.compressedSize, ref.entry.uncompressedSize);
    if (category !== 'signature') return;
    if (isV1SignatureBlock(ref.name)) this.v1Blocks.push(ref);
    else if (/\.SF$/i.test(ref.name)) this.hasSignatureFile = true;
  }

  async finish(zip: ZipArchive, manifest: XmlElement[]): Promise<BuildContents> {
    const signing = await readApkSigning(zip, this.v1Blocks, this.hasSignatureFile);
    const counted = this.tally.result();
    const abis = counted.breakdown.filter((c) => c.category === 'native' && c.name).map((c) => c.name as string).sort();
    return {
      format: CONTENTS_FORMAT,
      platform: 'android',
      fileSize: zip.size,
      ...counted,
      android: {
        ...manifestDetails(manifest),
        abis,
        signing: { schemes: signing.schemes, certificate: signing.certificate, blockBytes: signing.blockBytes },
      },
      ios: null,
      notes: signing.notes,
    };
  }
}

/** Permissions, features and SDK levels the manifest declares (top-level elements only, as the platform reads them). */
export function manifestDetails(elements: XmlElement[]): { minSdk: string | null; targetSdk: string | null; permissions: string[]; features: AndroidFeature[] } {
  const top = elements.filter((e) => e.depth === 1);
  const nameOf = (e: XmlElement) => attr(e.attributes, 'name', ATTR.name)?.stringValue ?? null;
  const permissions = distinct(
    top.filter((e) => PERMISSION_ELEMENTS.has(e.name)).map(nameOf).filter((n): n is string => !!n),
    MAX_LISTED,
  );
  const features: AndroidFeature[] = [];
  for (const e of top) {
    const name = e.name === 'uses-feature' ? nameOf(e) : null;
    if (!name || features.length >= MAX_LISTED || features.some((f) => f.name === name)) continue;
    const required = attr(e.attributes, 'required', ATTR.required);
    features.push({ name, required: !required || !(required.type === ValueType.Boolean ? required.data === 0 : required.raw === 'false') });
  }
  const sdk = top.find((e) => e.name === 'uses-sdk');
  const level = (a: ReturnType<typeof attr>) => {
    if (!a) return null;
    const n = integerValue(a);
    return n !== null ? String(n) : valueText(a);
  };
  return {
    minSdk: sdk ? level(attr(sdk.attributes, 'minSdkVersion', ATTR.minSdkVersion)) : null,
    targetSdk: sdk ? level(attr(sdk.attributes, 'targetSdkVersion', ATTR.targetSdkVersion)) : null,
    permissions,
    features,
  };
}

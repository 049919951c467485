import { ResourceTable } from './arsc';
import { decodeBinaryXml, XmlAttribute } from './binary-xml';
import { BuildMetadata, cleanMetadataString } from './build-metadata';
import { MalformedBuildError } from './malformed-build.error';
import { ValueType } from './res-chunks';

const ANDROID_NS = 'http://schemas.android.com/apk/res/android';
/** android.R.attr ids, used when a shrunk manifest left the attribute names empty. */
const ATTR = { label: 0x01010001, versionCode: 0x0101021b, versionName: 0x0101021c } as const;

/**
 * Reads package → bundleId, versionName, versionCode → buildNumber and the application label
 * (resolved through resources.arsc when it is a reference) from a compiled AndroidManifest.xml.
 * `loadResources` is called only when the label is a reference.
 */
export async function readApkManifest(
  manifest: Buffer,
  loadResources: () => Promise<Buffer | null>,
): Promise<BuildMetadata> {
  if (manifest.length >= 5 && manifest.subarray(0, 5).toString('latin1') === '<?xml') {
    throw new MalformedBuildError('AndroidManifest.xml is plain text; upload an APK built by the Android tools');
  }
  const elements = decodeBinaryXml(manifest);
  const root = elements[0];
  if (!root || root.name !== 'manifest') throw new MalformedBuildError('AndroidManifest.xml has no <manifest> element');
  const application = elements.find((e) => e.name === 'application' && e.depth === 1);

  const bundleId = cleanMetadataString(attr(root.attributes, 'package', null)?.stringValue);
  if (!bundleId) throw new MalformedBuildError('AndroidManifest.xml has no package name');
  const versionCode = attr(root.attributes, 'versionCode', ATTR.versionCode);
  const versionName = attr(root.attributes, 'versionName', ATTR.versionName);
  const label = application && attr(application.attributes, 'label', ATTR.label);

  let name: string | null = null;
  if (label?.type === ValueType.Reference && label.data !== 0) {
    const table = await loadResources();
    name = table ? new ResourceTable(table).resolveString(label.data) : null;
  } else if (label) {
    name = label.stringValue;
  }

  return {
    platform: 'android',
    bundleId,
    name: cleanMetadataString(name) ?? bundleId,
    versionName: cleanMetadataString(versionName && valueText(versionName)),
    buildNumber: cleanMetadataString(versionCode && valueText(versionCode)),
  };
}

function attr(attributes: XmlAttribute[], name: string, resourceId: number | null): XmlAttribute | undefined {
  return (
    attributes.find((a) => a.name === name && (resourceId === null ? !a.namespace : a.namespace === ANDROID_NS)) ??
    (resourceId === null ? undefined : attributes.find((a) => a.resourceId === resourceId))
  );
}

/** The text of a value: its string, or its integer rendered the way `aapt dump badging` does. */
function valueText(a: XmlAttribute): string | null {
  if (a.stringValue !== null) return a.stringValue;
  if (a.type === ValueType.IntDec || a.type === ValueType.IntHex) return String(a.data >>> 0);
  return null;
}

import { ResourceTable } from './arsc';
import { decodeBinaryXml, XmlAttribute, XmlElement } from './binary-xml';
import { BuildMetadata, cleanMetadataString } from './build-metadata';
import { MalformedBuildError } from './malformed-build.error';
import { ValueType } from './res-chunks';

const ANDROID_NS = 'http://schemas.android.com/apk/res/android';
/** android.R.attr ids, used when a shrunk or obfuscated manifest left the attribute names empty. */
const ATTR = {
  label: 0x01010001,
  name: 0x01010003,
  versionCode: 0x0101021b,
  versionName: 0x0101021c,
} as const;
const MAIN_ACTION = 'android.intent.action.MAIN';
const LAUNCHER_CATEGORY = 'android.intent.category.LAUNCHER';

/**
 * Reads package → bundleId, versionName, versionCode → buildNumber and the
 * app name from a compiled AndroidManifest.xml. References (`@string/…`) are resolved through
 * resources.arsc, which `loadResources` reads only when a value needs it.
 *
 * Name: `<application android:label>`, else the label of the launcher activity (what the home
 * screen shows when the application has none), else the package name.
 */
export async function readApkManifest(manifest: Buffer, loadResources: () => Promise<Buffer | null>): Promise<BuildMetadata> {
  return readManifestMetadata(decodeManifest(manifest), loadResources);
}

/** The compiled manifest's elements in document order; a plain-text manifest is refused with what to do. */
export function decodeManifest(manifest: Buffer): XmlElement[] {
  if (manifest.length >= 5 && manifest.subarray(0, 5).toString('latin1') === '<?xml') {
    throw new MalformedBuildError('AndroidManifest.xml is plain text; upload an APK built by the Android tools');
  }
  return decodeBinaryXml(manifest);
}

export async function readManifestMetadata(elements: XmlElement[], loadResources: () => Promise<Buffer | null>): Promise<BuildMetadata> {
  const root = elements[0];
  if (!root || root.name !== 'manifest') throw new MalformedBuildError('AndroidManifest.xml has no <manifest> element');
  const application = elements.find((e) => e.name === 'application' && e.depth === 1);

  const bundleId = cleanMetadataString(attr(root.attributes, 'package', null)?.stringValue);
  if (!bundleId) throw new MalformedBuildError('AndroidManifest.xml has no package name');

  let table: ResourceTable | null | undefined;
  const resolve = async (a: XmlAttribute | undefined): Promise<string | null> => {
    if (!a) return null;
    if (!isReference(a)) return cleanMetadataString(valueText(a));
    if (table === undefined) {
      const bytes = await loadResources();
      table = bytes ? new ResourceTable(bytes) : null;
    }
    return cleanMetadataString(table?.resolveString(a.data) ?? null);
  };

  const name =
    (await resolve(application && attr(application.attributes, 'label', ATTR.label))) ??
    (await resolve(launcherActivityLabel(elements, application))) ??
    bundleId;

  return {
    platform: 'android',
    bundleId,
    name,
    versionName: await resolve(attr(root.attributes, 'versionName', ATTR.versionName)),
    buildNumber: versionCodeText(root.attributes),
  };
}

export function attr(attributes: XmlAttribute[], name: string, resourceId: number | null): XmlAttribute | undefined {
  return (
    attributes.find((a) => a.name === name && (resourceId === null ? !a.namespace : a.namespace === ANDROID_NS)) ??
    (resourceId === null ? undefined : attributes.find((a) => a.resourceId === resourceId))
  );
}

/** A resource reference (`@string/x`), including the dynamic references of shared libraries. */
function isReference(a: XmlAttribute): boolean {
  return (a.type === ValueType.Reference || a.type === ValueType.DynamicReference) && a.data !== 0;
}

/**
 * The label of the first `<activity>` / `<activity-alias>` of the application with an intent filter
 * for MAIN + LAUNCHER, when it declares one.
 */
function launcherActivityLabel(elements: XmlElement[], application: XmlElement | undefined): XmlAttribute | undefined {
  if (!application) return undefined;
  const start = elements.indexOf(application);
  for (let i = start + 1; i < elements.length && elements[i].depth > application.depth; i++) {
    const activity = elements[i];
    if (activity.depth !== application.depth + 1 || (activity.name !== 'activity' && activity.name !== 'activity-alias')) {
      continue;
    }
    let main = false;
    let launcher = false;
    for (let j = i + 1; j < elements.length && elements[j].depth > activity.depth; j++) {
      const value = attr(elements[j].attributes, 'name', ATTR.name)?.stringValue;
      if (elements[j].name === 'action' && value === MAIN_ACTION) main = true;
      if (elements[j].name === 'category' && value === LAUNCHER_CATEGORY) launcher = true;
    }
    if (main && launcher) return attr(activity.attributes, 'label', ATTR.label);
  }
  return undefined;
}

/**
 * versionCode exactly as `aapt dump badging` prints it (the yardstick), in decimal.
 * versionCodeMajor is deliberately not folded in: badging shows only versionCode, and so do CI
 * scripts that compare against it (docs/builds.md).
 */
function versionCodeText(attributes: XmlAttribute[]): string | null {
  const code = attr(attributes, 'versionCode', ATTR.versionCode);
  const value = code && integerValue(code);
  if (value === null || value === undefined) return cleanMetadataString(code && valueText(code));
  return String(value >>> 0);
}

export function integerValue(a: XmlAttribute): number | null {
  if (a.type === ValueType.IntDec || a.type === ValueType.IntHex) return a.data;
  if (a.raw !== null && /^\s*(0x[0-9a-f]+|\d+)\s*$/i.test(a.raw)) {
    const n = Number(a.raw.trim());
    return Number.isSafeInteger(n) && n <= 0xffffffff ? n : null;
  }
  return null;
}

/** The text of a value: its string, or its integer rendered the way `aapt dump badging` does. */
export function valueText(a: XmlAttribute): string | null {
  if (a.stringValue !== null) return a.stringValue;
  if (a.type === ValueType.IntDec || a.type === ValueType.IntHex) return String(a.data >>> 0);
  return null;
}

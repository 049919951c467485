import { createReadStream } from 'node:fs';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { extract as tarExtract } from 'tar-stream';
import type { BuildMetadata } from './build-metadata';
import { MAX_ICON_BYTES } from './build-icon';
import { AppCandidate, chooseApp, isMacAppPlist, isTestRunnerPlist, MAX_APP_CANDIDATES, tooManyApps } from './app-choice';
import { IosContentsReader } from './ios-contents';
import { iconFilesFor, isBundleRootPng, largestIcon, MAX_BUNDLE_PNG_BYTES, MAX_BUNDLE_PNGS } from './ios-icon';
import { MalformedBuildError } from './malformed-build.error';
import { safeEntryName, ZipArchive, ZipEntryRef } from './zip-archive';

/** Largest Info.plist read into memory (real ones are a few KB). */
export const MAX_INFO_PLIST_BYTES = 1024 * 1024;
/** tar entries looked at before a tarball is refused. */
const MAX_TAR_ENTRIES = 200_000;
/** A tarball may inflate to this many times its compressed size (plus a floor) before it counts as a bomb. */
const MAX_GZIP_RATIO = 20;
const GZIP_FLOOR_BYTES = 64 * 1024 * 1024;

const NO_BUNDLE = 'The archive contains no app bundle (expected Name.app/Info.plist at the top level or one folder down)';

/** The 400 for an archive without a bundle at an accepted depth; names a deeper .app when there is one. */
function noBundle(deeper: string | null): MalformedBuildError {
  if (!deeper) return new MalformedBuildError(NO_BUNDLE);
  return new MalformedBuildError(
    `The archive contains no app bundle at the top level or one folder down (found ${deeper}; zip or tar the .app folder itself, or its parent folder)`,
  );
}

/** `a/b/Foo.app` for `a/b/Foo.app/Info.plist` when no folder above it is a bundle (a bundle too deep to accept). */
function deepBundle(name: string): string | null {
  const parts = name.split('/');
  if (parts.length < 4 || parts[parts.length - 1] !== 'Info.plist' || !parts[parts.length - 2].endsWith('.app')) return null;
  const above = parts.slice(0, -2);
  if (above[0] === '__MACOSX' || above.some((p) => /\.(app|appex|framework|bundle|xctest)$/i.test(p))) return null;
  return parts.slice(0, -1).join('/');
}

/**
 * Depth of the app bundle's own Info.plist: `Name.app/Info.plist` → 0, `folder/Name.app/Info.plist` → 1,
 * anything else (nested frameworks, extensions, macOS resource forks) → null.
 */
export function bundlePlistDepth(name: string): 0 | 1 | null {
  const parts = name.split('/');
  if (parts[parts.length - 1] !== 'Info.plist') return null;
  if (parts.length === 2 && parts[0].endsWith('.app')) return 0;
  if (parts.length === 3 && parts[1].endsWith('.app') && !parts[0].endsWith('.app') && parts[0] !== '__MACOSX') return 1;
  return null;
}

/**
 * `.app.zip`: the central directory is listed; only the Info.plists of the candidate apps (app-choice.ts)
 * and the chosen bundle's icon PNGs are inflated.
 */
export async function readIosZip(path: string, size?: number): Promise<BuildMetadata> {
  const zip = await ZipArchive.open(path, size);
  try {
    const candidates: ZipEntryRef[] = [];
    let macApp: ZipEntryRef | null = null;
    let deeper: string | null = null;
    const pngs = new Map<string, ZipEntryRef>();
    const contents = new IosContentsReader(zip.size, true);
    await zip.scan((ref) => {
      contents.visit(ref.name, ref.entry.compressedSize, ref.entry.uncompressedSize);
      const depth = bundlePlistDepth(ref.name);
      if (depth !== null) candidates.push(ref);
      else if (!macApp && isMacAppPlist(ref.name)) macApp = ref;
      if (depth === null && !deeper) deeper = deepBundle(ref.name);
      if (isBundleRootPng(ref.name) && pngs.size < MAX_BUNDLE_PNGS * 4) pngs.set(ref.name, ref);
    });
    const plistOf = (ref: ZipEntryRef): AppCandidate => ({
      plistPath: ref.name,
      read: () => zip.read(ref, MAX_INFO_PLIST_BYTES, 'Info.plist'),
    });
    const mac = macApp as ZipEntryRef | null;
    const { info, plistPath } = await chooseApp(candidates.map(plistOf), mac && plistOf(mac), () => noBundle(deeper));
    const { metadata, iconNames } = info;
    const folder = plistPath.slice(0, -'Info.plist'.length);
    const inBundle = [...pngs.keys()].filter((n) => n.startsWith(folder)).map((n) => n.slice(folder.length));
    const icons: Buffer[] = [];
    for (const file of iconFilesFor(iconNames, inBundle).slice(0, 8)) {
      const ref = pngs.get(folder + file)!;
      if (ref.entry.uncompressedSize <= MAX_ICON_BYTES) icons.push(await zip.read(ref, MAX_ICON_BYTES, file).catch(() => Buffer.alloc(0)));
    }
    return { ...metadata, icon: largestIcon(icons), contents: contents.finish(info, folder) };
  } finally {
    zip.close();
  }
}

/**
 * `.tar.gz` / `.tgz`: streamed through gunzip and a tar parser, nothing written to disk: the Info.plists
 * of the candidate apps (app-choice.ts; test runners' are not kept), the first macOS bundle's, and the
 * bundles' top-level PNGs (icons; at most 64 of at most 256 KB, 4 MB in all). Links are ignored (never
 * followed); entry count and inflation are capped.
 */
export async function readIosTarball(path: string, compressedSize: number): Promise<BuildMetadata> {
  const tar = tarExtract();
  const feeding = pipeline(createReadStream(path), createGunzip(), inflationLimit(compressedSize), tar);
  feeding.catch(() => undefined); // its failure reaches the loop below through `tar`
  let entries = 0;
  let deeper: string | null = null;
  const candidates: AppCandidate[] = [];
  let kept = 0;
  let macApp: AppCandidate | null = null;
  const pngs = new Map<string, Buffer>();
  let pngBytes = 0;
  const contents = new IosContentsReader(compressedSize, false);
  try {
    // Read on to the end after the plist: icon PNGs may follow it (tar keeps the directory's order).
    for await (const entry of tar) {
      if (++entries > MAX_TAR_ENTRIES) throw new MalformedBuildError(`The archive has more than ${MAX_TAR_ENTRIES} entries`);
      const name = safeEntryName(entry.header.name);
      const isFile = entry.header.type === 'file' || entry.header.type === 'contiguous-file';
      const size = entry.header.size ?? 0;
      if (name && isFile) contents.visit(name, null, size);
      if (name && isFile && isBundleRootPng(name)) {
        if (size <= MAX_ICON_BYTES && pngs.size < MAX_BUNDLE_PNGS && pngBytes + size <= MAX_BUNDLE_PNG_BYTES) {
          pngBytes += size;
          pngs.set(name, await readAll(entry));
        } else entry.resume();
        continue;
      }
      const plistOf = !name || !isFile ? null : bundlePlistDepth(name) !== null ? 'app' : !macApp && isMacAppPlist(name) ? 'mac' : null;
      if (!plistOf) {
        if (name && isFile && !deeper) deeper = deepBundle(name);
        entry.resume();
        continue;
      }
      if (plistOf === 'app' && isTestRunnerPlist(name!)) {
        // Known by its name: listed, never kept (chooseApp does not read a runner's plist).
        candidates.push({ plistPath: name!, read: () => Promise.resolve(Buffer.alloc(0)) });
        entry.resume();
        continue;
      }
      if (size > MAX_INFO_PLIST_BYTES) throw new MalformedBuildError(`Info.plist is larger than ${MAX_INFO_PLIST_BYTES} bytes`);
      if (plistOf === 'app' && ++kept > MAX_APP_CANDIDATES) throw tooManyApps();
      const bytes = await readAll(entry);
      const plist: AppCandidate = { plistPath: name!, read: () => Promise.resolve(bytes) };
      if (plistOf === 'app') candidates.push(plist);
      else macApp = plist;
    }
    await feeding;
  } catch (err) {
    if (err instanceof MalformedBuildError) throw err;
    throw new MalformedBuildError(`The file is not a readable .tar.gz archive (${(err as Error).message})`);
  } finally {
    tar.destroy();
  }
  const { info, plistPath } = await chooseApp(candidates, macApp, () => noBundle(deeper));
  const folder = plistPath.slice(0, -'Info.plist'.length);
  const inBundle = [...pngs.keys()].filter((n) => n.startsWith(folder)).map((n) => n.slice(folder.length));
  return {
    ...info.metadata,
    icon: largestIcon(iconFilesFor(info.iconNames, inBundle).map((file) => pngs.get(folder + file)!)),
    contents: contents.finish(info, folder),
  };
}

async function readAll(entry: AsyncIterable<unknown>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of entry) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Passes the inflated bytes through, failing once they exceed the bomb limit for this compressed size. */
function inflationLimit(compressedSize: number): Transform {
  const maxInflated = Math.max(GZIP_FLOOR_BYTES, compressedSize * MAX_GZIP_RATIO);
  let inflated = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      inflated += chunk.length;
      if (inflated > maxInflated) {
        return done(new MalformedBuildError('The archive expands to far more than its size (refused as a decompression bomb)'));
      }
      done(null, chunk);
    },
  });
}

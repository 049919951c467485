import { createReadStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { extract as tarExtract } from 'tar-stream';
import type { BuildMetadata } from './build-metadata';
import { readInfoPlist } from './info-plist';
import { MalformedBuildError } from './malformed-build.error';
import { safeEntryName, ZipArchive } from './zip-archive';

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

/** `Foo.app` for `Foo.app/Info.plist` or `folder/Foo.app/Info.plist`. */
function bundleFolderOf(name: string): string {
  const parts = name.split('/');
  return parts[parts.length - 2];
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

/** `.app.zip`: the central directory is listed, only the bundle's Info.plist is inflated. */
export async function readIosZip(path: string): Promise<BuildMetadata> {
  const zip = await ZipArchive.open(path);
  try {
    let best: { ref: Parameters<ZipArchive['read']>[0]; depth: number } | null = null;
    let deeper: string | null = null;
    await zip.scan((ref) => {
      const depth = bundlePlistDepth(ref.name);
      if (depth !== null && (!best || depth < best.depth)) best = { ref, depth };
      if (depth === null && !deeper) deeper = deepBundle(ref.name);
      return best?.depth === 0;
    });
    const found = best as { ref: Parameters<ZipArchive['read']>[0]; depth: number } | null;
    if (!found) throw noBundle(deeper);
    const bytes = await zip.read(found.ref, MAX_INFO_PLIST_BYTES, 'Info.plist');
    return await readInfoPlist(bytes, bundleFolderOf(found.ref.name));
  } finally {
    zip.close();
  }
}

/**
 * `.tar.gz` / `.tgz`: streamed through gunzip and a tar parser, nothing written to disk; stops at the
 * first bundle Info.plist. Links are ignored (never followed); entry count and inflation are capped.
 */
export async function readIosTarball(path: string, compressedSize: number): Promise<BuildMetadata> {
  const maxInflated = Math.max(GZIP_FLOOR_BYTES, compressedSize * MAX_GZIP_RATIO);
  const source = createReadStream(path);
  const gunzip = createGunzip();
  const tar = tarExtract();
  let inflated = 0;
  let entries = 0;
  let plist: Buffer | null = null;
  let plistName = '';
  let deeper: string | null = null;
  const stop = new Error('stop');
  let refusal: MalformedBuildError | null = null;
  const refuse = (err: MalformedBuildError) => {
    refusal ??= err;
    tar.destroy(stop);
  };

  gunzip.on('data', (chunk: Buffer) => {
    inflated += chunk.length;
    if (inflated > maxInflated) refuse(new MalformedBuildError('The archive expands to far more than its size (refused as a decompression bomb)'));
  });
  tar.on('entry', (header, stream, next) => {
    stream.on('error', () => undefined); // destroyed with `stop` or a refusal; reported below
    if (++entries > MAX_TAR_ENTRIES) return refuse(new MalformedBuildError(`The archive has more than ${MAX_TAR_ENTRIES} entries`));
    const name = safeEntryName(header.name);
    const isFile = header.type === 'file' || header.type === 'contiguous-file';
    if (!name || !isFile || bundlePlistDepth(name) === null) {
      if (name && isFile && !deeper) deeper = deepBundle(name);
      stream.on('end', () => next());
      stream.resume();
      return;
    }
    if ((header.size ?? 0) > MAX_INFO_PLIST_BYTES) {
      return refuse(new MalformedBuildError(`Info.plist is larger than ${MAX_INFO_PLIST_BYTES} bytes`));
    }
    const chunks: Buffer[] = [];
    stream.on('data', (c: unknown) => chunks.push(c as Buffer));
    stream.on('end', () => {
      plist = Buffer.concat(chunks);
      plistName = name;
      tar.destroy(stop);
    });
  });

  try {
    await pipeline(source, gunzip, tar);
  } catch (err) {
    if (err !== stop && !refusal) {
      throw new MalformedBuildError(`The file is not a readable .tar.gz archive (${(err as Error).message})`);
    }
  } finally {
    source.destroy();
    gunzip.destroy();
  }
  if (refusal) throw refusal;
  if (!plist) throw noBundle(deeper);
  return readInfoPlist(plist, bundleFolderOf(plistName));
}
